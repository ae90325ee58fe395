// The definitions a script never calls (interpreter.h runUncalledDefinitions): run after the
// script when it recorded no fusion, with a fresh FusionDefinition or opaque test fixtures.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "io/python/interpreter.h"

namespace fc::py {

// Definitions nobody called, in source order, test functions and definitions taking the
// FusionDefinition before the rest: a definition taking the FusionDefinition gets a fresh one; a
// test function gets opaque arguments (its fixtures) and is run for what it records.
void Interpreter::runUncalledDefinitions() {
  // A definition made while running another (a test's nested `def fusion_func(fd)` whose harness
  // call failed) is tried in a next round, after the definitions known before it.
  for (size_t done = 0, round = 0; done < defs_.size() && round < kDefinitionRounds; ++round) {
    const size_t from = done;
    done = defs_.size();
    if (runDefinitions(from, done)) return;
  }
}

bool Interpreter::runDefinitions(size_t from, size_t to) {
  std::vector<std::pair<NodeId, std::shared_ptr<Scope>>> defs(
      defs_.begin() + static_cast<std::ptrdiff_t>(from), defs_.begin() + static_cast<std::ptrdiff_t>(to));
  // Test functions and definitions taking `fd` first: a test calls the script's helpers with the
  // values it means (`fd = linear_forward(h, d, s)`), which a helper run on its own lacks.
  std::stable_partition(defs.begin(), defs.end(), [&](const auto& def) {
    const Node& d = m_[def.first];
    const std::string first = d.a.empty() ? "" : m_[d.a[0]].s;
    return d.s.rfind("test", 0) == 0 || first.rfind("fd", 0) == 0 || first == "fusion_definition";
  });
  for (const auto& [id, scope] : defs) {
    if (std::find(called_.begin(), called_.end(), id) != called_.end()) continue;
    const Node& d = m_[id];
    const std::string first = d.a.empty() ? "" : m_[d.a[0]].s;
    // Methods run through their instances, but for a pytest class's test methods (`def test_x(self,
    // fixture)`), which pytest calls on an instance the script never makes: they get opaque
    // arguments, `self` included, like test functions.
    const bool test_method = (first == "self" || first == "cls") && d.s.rfind("test", 0) == 0;
    if ((first == "self" || first == "cls") && !test_method) continue;
    Ref fn = makeFunction(d, scope);
    Args args;
    args.off = d.off;
    Ref fd;  // the fresh FusionDefinition of a definition taking one
    try {
      if (!test_method && (first.rfind("fd", 0) == 0 || first == "fusion_definition")) {
        fd = newFusionDefinition(d.off, imported_, nullptr);
        runDefinition(fn, fd, args);
      } else {
        const std::vector<std::pair<std::string, Ref>> params = firstParametrization(d, scope);
        for (NodeId p : d.a)
          if (m_[p].i == 0 && m_[p].a[0] == kNoNode) {
            auto given = std::find_if(params.begin(), params.end(),
                                      [&](const auto& kv) { return kv.first == m_[p].s; });
            if (given != params.end()) {
              args.pos.push_back(given->second);
              args.pos_off.push_back(m_[p].off);
              continue;
            }
            // nvFuser's direct-frontend tests take the `nvfuser_direct_test` fixture
            // (tests/python/direct/conftest.py:89 @ 81c4b22fd), its multi-device ones took
            // `multidevice_direct_test` until #5731 (tests/python/multidevice/conftest.py:95-99 @
            // 3df4486dc): a script that imports neither module and takes one is one.
            if ((m_[p].s == "nvfuser_direct_test" || m_[p].s == "multidevice_direct_test") &&
                imported_ == Frontend::Unknown)
              imported_ = Frontend::Direct;
            args.pos.push_back(mkOpaque(m_[p].s));
            args.pos_off.push_back(m_[p].off);
          }
        callFunction(fn, args);
      }
    } catch (const PyError& e) {
      if (e.fatal) {  // a limit, or pytest.skip under stop_at_skip: the run stops here
        if (!skipped_at_) report(Severity::Error, e.code, e.message, e.off);
        return true;
      }
      report(Severity::Note, e.code, "skipped: " + e.message, e.off);
      // A helper that failed on its own (`def relu_twice(fd, x)`, whose `x` only a caller gives)
      // recorded nothing meant: the definitions after it, the test calling it among them, run.
      if (fd) fd->rec->recorded = false;
    }
    if (std::any_of(recs_.begin(), recs_.end(), [](const auto& r) { return r->recorded; })) return true;
  }
  return false;
}

// The first case of each `@pytest.mark.parametrize(names, cases)` on a test function: its names
// bound to the first case's values (a `pytest.param(...)` case gives its positional values), with a
// note saying which case the import takes. A case that cannot be evaluated leaves its names
// unbound (the fixture arguments' opaque values).
std::vector<std::pair<std::string, Ref>> Interpreter::firstParametrization(const Node& def,
                                                                           const std::shared_ptr<Scope>& sc) {
  std::vector<std::pair<std::string, Ref>> bound;
  for (NodeId dec : def.c) {
    const Node& call = m_[dec];
    if (call.k != NK::Call || call.a.size() < 3) continue;
    const Node& callee = m_[call.a[0]];
    if (callee.k != NK::Attr || callee.s != "parametrize") continue;
    const Node& names_node = m_[call.a[1]];
    std::vector<std::string> names;
    if (names_node.k == NK::Str) {
      std::string cur;
      for (char ch : names_node.s + ",") {
        if (ch == ',') {
          if (!cur.empty()) names.push_back(cur);
          cur.clear();
        } else if (ch != ' ') {
          cur += ch;
        }
      }
    } else if (names_node.k == NK::List || names_node.k == NK::Tuple) {
      for (NodeId n : names_node.a)
        if (m_[n].k == NK::Str) names.push_back(m_[n].s);
    }
    const Node& cases = m_[call.a[2]];
    if (names.empty() || (cases.k != NK::List && cases.k != NK::Tuple) || cases.a.empty()) continue;
    NodeId first = cases.a[0];
    std::vector<NodeId> value_nodes{first};
    const Node& fc = m_[first];
    if (fc.k == NK::Call && m_[fc.a[0]].k == NK::Attr && m_[fc.a[0]].s == "param")
      value_nodes.assign(fc.a.begin() + 1, fc.a.end());
    else if (names.size() > 1 && (fc.k == NK::Tuple || fc.k == NK::List))
      value_nodes = fc.a;
    if (value_nodes.size() != names.size()) continue;
    std::vector<std::pair<std::string, Ref>> these;
    try {
      for (size_t i = 0; i < names.size(); ++i) these.emplace_back(names[i], eval(value_nodes[i], sc));
    } catch (const PyError& e) {
      if (e.fatal) throw;
      continue;
    }
    std::string which;
    for (const auto& [name, v] : these) {
      which += (which.empty() ? "" : ", ") + name;
      if (v->k == VK::Int) which += " = " + std::to_string(v->i);
      if (v->k == VK::Bool) which += v->i ? " = True" : " = False";
      if (v->k == VK::Str) which += " = '" + v->s + "'";
    }
    report(Severity::Note, DiagCode::ImportUnsupported,
           "`" + def.s + "` is parametrized: the import takes the first case, " + which +
               " (pytest runs every case)",
           call.off);
    bound.insert(bound.end(), these.begin(), these.end());
  }
  return bound;
}

}  // namespace fc::py
