// What a test's body reads from around it: namespace-scope constants (`constexpr int64_t B = 2,
// E = 768;`) and device meshes (`DeviceMesh mesh0({0});`), a fixture member initialized with the device count
// (`D(communicator_->size())`), the value GetParam() returns (the first value of the suite's
// first INSTANTIATE_TEST_SUITE_P), and the fixture class's member defaults and SetUp().
#include <algorithm>

#include "io/cpp/reader.h"

namespace fc::cpp_text {
namespace {

bool isArithmeticType(std::string_view s) {
  return s == "int" || s == "int64_t" || s == "int32_t" || s == "size_t" || s == "long" || s == "double" ||
         s == "float" || s == "bool" || s == "DataType";
}

}  // namespace

Reader::Quiet Reader::quietStart() const {
  return Quiet{sink_.all().size(), errors_, skip_notes_, skipped_kinds_.size(), devices_noted_};
}

void Reader::quietEnd(const Quiet& q) {
  sink_.all().resize(q.diagnostics);
  errors_ = q.errors;
  skip_notes_ = q.skip_notes;
  skipped_kinds_.resize(q.skipped_kinds);
  devices_noted_ = q.devices_noted;
}

// Whether the `{` at i opens a namespace: `namespace {`, `namespace a {`, `namespace a::b {`.
bool Reader::opensNamespace(size_t i) const {
  size_t k = i;
  while (k >= 2 && isIdent(k - 1) && isPunct(k - 2, "::")) k -= 2;
  if (k >= 1 && isIdent(k - 1) && !isIdent(k - 1, "namespace")) --k;
  return k >= 1 && isIdent(k - 1, "namespace");
}

void Reader::quietDeclaration(size_t from, size_t type_end, size_t to) {
  const Quiet quiet = quietStart();
  const auto vars = vars_;
  p_ = from;
  end_ = to;
  if (!declaration(type_end) || errors_ != quiet.errors) vars_ = vars;
  quietEnd(quiet);
}

void Reader::fileScope(size_t body_open, size_t body_close) {
  const size_t saved_p = p_, saved_end = end_, whole = end_;
  std::vector<bool> scope;  // per open brace: a namespace's
  size_t start = 0;         // the first token of the statement being read
  for (size_t i = 0; i < whole; ++i) {
    if (i == body_open) {  // the test's own body is read by block()
      i = std::min(body_close, whole - 1);
      start = i + 1;
      continue;
    }
    if (isPunct(i, "{")) {
      scope.push_back(opensNamespace(i));
      start = i + 1;
      continue;
    }
    if (isPunct(i, "}")) {
      if (!scope.empty()) scope.pop_back();
      start = i + 1;
      continue;
    }
    if (isPunct(i, ";")) {
      start = i + 1;
      continue;
    }
    // `D(communicator_->size())` in a constructor's initializers, `D = communicator_->size();`.
    if (isIdent(i) && (isPunct(i + 1, "(") || isPunct(i + 1, "=")) && isIdent(i + 2, "communicator_") &&
        isPunct(i + 3, "->") && isIdent(i + 4, "size") && isPunct(i + 5, "(") && isPunct(i + 6, ")")) {
      const std::string name(str(i));
      if (!vars_.count(name)) {
        vars_[name] = Value::integer(numDevices(i));
        note("`" + name + "` is the fixture's device count (`communicator_->size()`)", i);
      }
      continue;
    }
    if (isIdent(i, "INSTANTIATE_TEST_SUITE_P") || isIdent(i, "INSTANTIATE_TEST_CASE_P")) {
      instantiation(i);
      continue;
    }
    if (i != start || !std::all_of(scope.begin(), scope.end(), [](bool ns) { return ns; })) continue;
    // A namespace-scope constant: storage words with const or constexpr, an arithmetic type.
    bool constant = false;
    size_t j = i;
    while (isIdent(j) &&
           (str(j) == "const" || str(j) == "constexpr" || str(j) == "static" || str(j) == "inline")) {
      constant = constant || str(j) == "const" || str(j) == "constexpr";
      ++j;
    }
    const bool arithmetic =
        isIdent(j) && (isArithmeticType(str(j)) || (isIdent(j, "std") && isPunct(j + 1, "::") &&
                                                    isIdent(j + 2) && isArithmeticType(str(j + 2))));
    // A namespace-scope DeviceMesh (`DeviceMesh mesh0({0, 1});`), const or not: a parameterized
    // suite's generator names it.
    const bool mesh = isIdent(j, "DeviceMesh");
    if (!(constant && arithmetic) && !mesh) continue;
    const size_t te = typeEnd(i);
    if (te <= i || !isIdent(te) ||
        !(isPunct(te + 1, "=") || isPunct(te + 1, "{") || (mesh && isPunct(te + 1, "("))))
      continue;
    size_t semi = te;
    int depth = 0;
    for (; semi < whole; ++semi) {
      if (isPunct(semi, "(") || isPunct(semi, "{") || isPunct(semi, "[")) ++depth;
      if (isPunct(semi, ")") || isPunct(semi, "}") || isPunct(semi, "]")) --depth;
      if (depth < 0 || (depth == 0 && isPunct(semi, ";"))) break;
    }
    if (semi >= whole || !isPunct(semi, ";")) continue;
    // Read as a declaration; one the import cannot evaluate leaves nothing behind (its names stay
    // unknown, and the body reports them where it uses them).
    quietDeclaration(i, te, semi + 1);
    p_ = saved_p;
    end_ = whole;
    i = semi;
    start = semi + 1;
  }
  p_ = saved_p;
  end_ = saved_end;
}

// INSTANTIATE_TEST_SUITE_P(prefix, Suite, generator[, namer]) at `at`: the generator of the suite
// the test belongs to.
void Reader::instantiation(size_t at) {
  if (!isPunct(at + 1, "(")) return;
  const size_t close = matching(at + 1);
  if (close >= end_) return;
  std::vector<size_t> commas;  // top-level commas of the call
  for (size_t k = at + 2; k < close; ++k) {
    if (isPunct(k, "(") || isPunct(k, "{") || isPunct(k, "[")) {
      k = matching(k);
      continue;
    }
    if (isPunct(k, ",")) commas.push_back(k);
  }
  if (commas.size() < 2) return;
  const std::string suite = commas[0] + 1 < commas[1] ? std::string(str(commas[1] - 1)) : "";
  const std::string fixture = test_name_.substr(0, test_name_.find('.'));
  if (suite.empty() || suite != fixture) return;
  // gtest runs the instantiations in the file's order: the first one's first case runs first.
  if (++param_instantiations_ > 1) return;
  param_from_ = commas[1] + 1;
  param_to_ = commas.size() > 2 ? commas[2] : close;
}

// The first value of the generator in tokens [from, to): testing::Values(a, ...) gives a,
// ValuesIn(list) its first item, Bool() false, Range(a, b) a, Combine(g1, g2, ...) the list of
// each one's first value.
std::optional<Value> Reader::firstParam(size_t from, size_t to) {
  size_t k = from;
  if (isPunct(k, "::")) ++k;
  if (isIdent(k, "testing") && isPunct(k + 1, "::")) k += 2;
  if (!isIdent(k) || !isPunct(k + 1, "(")) return std::nullopt;
  const std::string gen(str(k));
  const size_t open = k + 1, close = matching(open);
  if (close >= to || close >= end_) return std::nullopt;
  std::vector<std::pair<size_t, size_t>> args;
  size_t a = open + 1;
  for (size_t j = open + 1; j <= close; ++j) {
    if (j < close && (isPunct(j, "(") || isPunct(j, "{") || isPunct(j, "["))) {
      j = matching(j);
      continue;
    }
    if (j == close || isPunct(j, ",")) {
      if (j > a) args.emplace_back(a, j);
      a = j + 1;
    }
  }
  if (gen == "Bool") return Value::integer(0);
  if (args.empty()) return std::nullopt;
  if (gen == "Values" || gen == "Range") return exprIn(args[0].first, args[0].second);
  if (gen == "ValuesIn") {
    auto v = exprIn(args[0].first, args[0].second);
    if (v && v->k == Value::K::List && !v->items.empty()) return v->items[0];
    return std::nullopt;
  }
  if (gen == "Combine") {
    Value list;
    list.k = Value::K::List;
    for (auto [b, e] : args) {
      auto v = firstParam(b, e);
      if (!v) return std::nullopt;
      list.items.push_back(*v);
    }
    return list;
  }
  return std::nullopt;
}

std::optional<Value> Reader::testParam(size_t at) {
  if (param_from_ == SIZE_MAX || in_test_param_) return std::nullopt;
  param_used_at_ = at;
  const size_t saved_p = p_, saved_end = end_;
  const Quiet quiet = quietStart();
  end_ = whole_end_;
  in_test_param_ = true;
  auto v = firstParam(param_from_, param_to_);
  in_test_param_ = false;
  p_ = saved_p;
  end_ = saved_end;
  const bool failed = errors_ != quiet.errors;
  quietEnd(quiet);
  if (!v || failed || v->k == Value::K::Opaque) return std::nullopt;
  end_ = whole_end_;
  const std::string generator = snippet(param_from_, param_to_);
  end_ = saved_end;
  note("GetParam() is taken as the first value of " +
           std::string(param_instantiations_ > 1
                           ? "the first of the suite's " + std::to_string(param_instantiations_) +
                                 " INSTANTIATE_TEST_SUITE_P generators, "
                           : "INSTANTIATE_TEST_SUITE_P's generator, ") +
           generator,
       at);
  return v;
}

// The test's fixture class (`class Suite : public NVFuserFixtureParamTest<...> { ... };`), as gtest
// makes it before the body runs: its members' default initializers (`int64_t m = 8;`), then its
// SetUp() (`std::tie(m, n, dtype) = GetParam();`). Both are read quietly, as the namespace's
// constants are: one the import cannot evaluate leaves nothing behind, and the body reports the
// names it lacks. A note names what SetUp() set.
void Reader::fixtureClass() {
  const std::string fixture = test_name_.substr(0, test_name_.find('.'));
  if (fixture.empty()) return;
  size_t open = SIZE_MAX;
  for (size_t i = 0; i + 2 < whole_end_ && open == SIZE_MAX; ++i) {
    if (!(isIdent(i, "class") || isIdent(i, "struct")) || !isIdent(i + 1) || str(i + 1) != fixture) continue;
    size_t k = i + 2;
    while (k < whole_end_ && !isPunct(k, "{") && !isPunct(k, ";")) {
      if (isPunct(k, "<")) k = std::min(matching(k), whole_end_);
      ++k;
    }
    if (k < whole_end_ && isPunct(k, "{")) open = k;
  }
  if (open == SIZE_MAX) return;
  const size_t close = matching(open);
  if (close >= whole_end_) return;
  const size_t saved_p = p_, saved_end = end_;
  size_t setup_open = SIZE_MAX, setup_close = SIZE_MAX;
  for (size_t i = open + 1; i < close;) {
    if (isIdent(i) && (str(i) == "public" || str(i) == "protected" || str(i) == "private") &&
        isPunct(i + 1, ":")) {
      i += 2;
      continue;
    }
    // The member's extent: to its `;` at this depth, or through a function's body.
    size_t e = i, brace = SIZE_MAX;
    while (e < close && !isPunct(e, ";")) {
      if (isPunct(e, "(") || isPunct(e, "[")) {
        e = matching(e);
      } else if (isPunct(e, "{")) {
        // A function's body follows its parameter list (and `const`, `override`); an initializer's
        // brace follows the name.
        if (e > i && (isPunct(e - 1, ")") || isIdent(e - 1, "override") || isIdent(e - 1, "const") ||
                      isIdent(e - 1, "final"))) {
          brace = e;
          e = matching(e);
          break;
        }
        e = matching(e);
      }
      ++e;
    }
    if (brace != SIZE_MAX) {
      for (size_t k = i; k < brace; ++k)
        if (isIdent(k, "SetUp") && isPunct(k + 1, "(")) setup_open = brace, setup_close = e;
      i = e + 1;
      continue;
    }
    const size_t te = typeEnd(i);
    if (te > i && isIdent(te) && (isPunct(te + 1, "=") || isPunct(te + 1, "{")) && e < close) {
      quietDeclaration(i, te, e + 1);
      p_ = saved_p;
      end_ = saved_end;
    }
    i = e + 1;
  }
  if (setup_open != SIZE_MAX && setup_close < close) {
    const Quiet quiet = quietStart();
    const auto vars = vars_;
    param_used_at_ = SIZE_MAX;
    p_ = setup_open + 1;
    end_ = setup_close;
    const bool ok = block(setup_close) && errors_ == quiet.errors;
    quietEnd(quiet);
    std::string set;
    if (!ok) {
      vars_ = vars;
    } else {
      for (const auto& [name, v] : vars_) {
        auto before = vars.find(name);
        if (before == vars.end() || before->second.k != v.k || before->second.i != v.i ||
            before->second.f != v.f || before->second.dtype != v.dtype)
          set += (set.empty() ? "" : ", ") + name;
      }
    }
    p_ = saved_p;
    end_ = saved_end;
    if (!set.empty()) {
      if (param_used_at_ != SIZE_MAX) testParam(param_used_at_);  // its note, which the quiet run dropped
      note("the fixture's SetUp() runs before the test: it sets " + set, setup_open);
    }
  }
  p_ = saved_p;
  end_ = saved_end;
}

}  // namespace fc::cpp_text
