// What a test's body reads from around it: namespace-scope constants (`constexpr int64_t B = 2,
// E = 768;`) and device meshes (`DeviceMesh mesh0({0});`), a fixture member initialized with the device count
// (`D(communicator_->size())`), and the value GetParam() returns (the first value of the suite's
// INSTANTIATE_TEST_SUITE_P).
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
    const Quiet quiet = quietStart();
    const auto vars = vars_;
    p_ = i;
    end_ = semi + 1;
    const bool ok = declaration(te);
    if (!ok || errors_ != quiet.errors) vars_ = vars;
    quietEnd(quiet);
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

}  // namespace fc::cpp_text
