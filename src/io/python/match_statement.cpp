// Python's `match` statement (PEP 634) as repros use it: literal, value (`Enum.MEMBER`),
// capture, wildcard, or (`a | b`) and sequence patterns, `as` captures and guards.
#include <string>
#include <utility>
#include <vector>

#include "io/python/interpreter.h"

namespace fc::py {

Interpreter::Flow Interpreter::matchStmt(const Node& n, const std::shared_ptr<Scope>& sc) {
  Ref subject = eval(n.a[0], sc);
  for (NodeId c : n.b) {
    const Node& k = m_[c];
    std::vector<std::pair<std::string, Ref>> binds;
    if (!matchPattern(k.a[0], subject, sc, binds)) continue;
    if (!k.s.empty()) binds.emplace_back(k.s, subject);
    // Python binds the captures before it tests the guard.
    for (auto& [name, v] : binds) sc->vars[name] = v;
    if (k.a[1] != kNoNode && !truthy(eval(k.a[1], sc), m_[k.a[1]].off)) continue;
    return execBlock(k.b, sc);
  }
  return Flow::Normal;
}

bool Interpreter::matchPattern(NodeId p, const Ref& v, const std::shared_ptr<Scope>& sc,
                               std::vector<std::pair<std::string, Ref>>& binds) {
  const Node& n = m_[p];
  switch (n.k) {
    case NK::Name:
      if (n.s != "_") binds.emplace_back(n.s, v);  // a capture pattern; `_` matches without binding
      return true;
    case NK::Attr:  // a value pattern: a dotted name compared with ==
    case NK::Int:
    case NK::Float:
    case NK::Imag:
    case NK::Str:
    case NK::Unary: return equal(eval(p, sc), v);
    case NK::True:
    case NK::False:
    case NK::None: {  // compared by identity in Python: the same kind and value
      Ref lit = eval(p, sc);
      return lit->k == v->k && equal(lit, v);
    }
    case NK::Binary:
      if (n.s == "|") {
        for (NodeId alt : n.a) {
          std::vector<std::pair<std::string, Ref>> b;
          if (matchPattern(alt, v, sc, b)) {
            binds.insert(binds.end(), b.begin(), b.end());
            return true;
          }
        }
        return false;
      }
      if (n.s == "+" || n.s == "-") return equal(eval(p, sc), v);  // a complex literal (`1 + 2j`)
      break;
    case NK::List:
    case NK::Tuple: {
      if (v->k != VK::List && v->k != VK::Tuple) return false;
      const std::vector<Ref>& items = v->items;
      size_t star = n.a.size();
      for (size_t i = 0; i < n.a.size(); ++i)
        if (m_[n.a[i]].k == NK::Starred) star = i;
      const size_t fixed = star == n.a.size() ? n.a.size() : n.a.size() - 1;
      if (star == n.a.size() ? items.size() != fixed : items.size() < fixed) return false;
      for (size_t i = 0; i < star && i < n.a.size(); ++i)
        if (!matchPattern(n.a[i], items[i], sc, binds)) return false;
      if (star == n.a.size()) return true;
      const size_t after = n.a.size() - star - 1, rest_end = items.size() - after;
      for (size_t i = 0; i < after; ++i)
        if (!matchPattern(n.a[star + 1 + i], items[rest_end + i], sc, binds)) return false;
      const Node& s = m_[m_[n.a[star]].a[0]];
      if (s.k == NK::Name && s.s != "_") {
        Ref rest = mk(VK::List);
        rest->items.assign(items.begin() + static_cast<std::ptrdiff_t>(star),
                           items.begin() + static_cast<std::ptrdiff_t>(rest_end));
        binds.emplace_back(s.s, rest);
      }
      return true;
    }
    default: break;
  }
  fail("this form of `case` pattern (a class, mapping or other pattern) is not supported", n.off);
}

}  // namespace fc::py
