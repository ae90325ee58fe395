// Statements of a C++ test (see reader.h): the test frame (`TEST_F(Suite, Name) { ... }`, or bare
// statements pasted without one), blocks, declarations (`auto x = ...;`, `TensorView* x = ...;`,
// `int M = 128, N = 64;`, `DeviceMesh mesh({0, 1});`, `auto [a, b] = ...;`), expression
// statements, range and counted `for` loops, and `if` with a condition known at import.
// Statements that do not build the fusion (executors' runs, validation, EXPECT_* and ASSERT_*,
// prints, scheduling passes) are skipped with one note per kind.
#include <algorithm>

#include "io/cpp/reader.h"
#include "ir/history_start.h"
#include "support/suggest.h"

namespace fc::cpp_text {
namespace {

// The class templates a test's declarations name.
constexpr const char* kTemplateNames[] = {
    "vector", "unique_ptr",    "shared_ptr",       "array",    "pair", "tuple",   "optional", "map",
    "set",    "unordered_map", "initializer_list", "function", "span", "variant", "ArrayRef", "Container"};

bool isTemplateName(std::string_view s) {
  for (const char* n : kTemplateNames)
    if (s == n) return true;
  return false;
}

bool isStorageWord(std::string_view s) {
  return s == "const" || s == "constexpr" || s == "static" || s == "volatile" || s == "inline" ||
         s == "unsigned" || s == "signed" || s == "long" || s == "short";
}

}  // namespace

Reader::Reader(const MappedText& text, const Lexer& lex, DiagnosticSink& sink)
    : TokenCursor(lex, 0, lex.tokens().size() - 1), text_(text), sink_(sink), b_(f_) {}

bool Reader::expect(std::string_view p) {
  if (eat(p)) return true;
  return error(DiagCode::ImportSyntax, "expected '" + std::string(p) + "'" + found(), p_);
}

size_t Reader::matching(size_t open) const {
  std::string_view o = str(open);
  std::string_view c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (size_t i = open; i < end_; ++i) {
    if (isPunct(i, o)) ++depth;
    if (isPunct(i, c) && --depth == 0) return i;
    if (o == "<" && (isPunct(i, ";") || isPunct(i, "{"))) return end_;
  }
  return end_;
}

bool Reader::startsLine(size_t i) const {
  if (i == 0 || i >= toks_.size()) return i == 0;
  const size_t from = toks_[i - 1].off + toks_[i - 1].len;
  return lex_.text().substr(from, toks_[i].off - from).find('\n') != std::string_view::npos;
}

bool Reader::endStatement() {
  if (eat(";")) return true;
  // A paste that lost a line's `;` (`Fusion fusion` then `FusionGuard fg(&fusion)`): the next
  // statement starts a line.
  if (p_ < end_ && p_ > 0 && startsLine(p_)) {
    sink_.report(
        Severity::Warning, DiagCode::ImportSyntax,
        "this statement has no `;` at the end of its line (lost in the paste?): it is read as if it had one",
        loc(p_ - 1));
    return true;
  }
  return expect(";");
}

bool Reader::error(DiagCode c, std::string msg, size_t at) {
  ++errors_;
  sink_.error(c, std::move(msg), loc(at));
  return false;
}

void Reader::note(std::string msg, size_t at) {
  sink_.report(Severity::Note, DiagCode::ImportNote, std::move(msg), loc(at));
}

void Reader::markPreRepo(const std::string& what, size_t at) {
  if (!pre_repo_.empty()) return;
  pre_repo_ = what;
  note("the test uses " + what +
           " of nvFuser's C++ API in PyTorch's tree, which nvFuser's own repository (from 2023-03-13) never "
           "had: "
           "it is dated before that",
       at);
}

std::string Reader::found() const {
  if (p_ >= end_) return ", found the end of the text";
  return ", found '" + std::string(str(p_)) + "'";
}

std::string Reader::snippet(size_t from, size_t to) const {
  if (from >= end_) return "";
  to = std::min(to, end_);
  if (to <= from) to = from + 1;
  size_t a = tok(from).off, b = tok(to - 1).off + tok(to - 1).len;
  std::string s(lex_.text().substr(a, b - a));
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

// ---------------------------------------------------------------- the test frame

// The body of the first TEST_F / TEST_P / TEST that builds a fusion; without one, the whole text.
bool Reader::findBody() {
  whole_end_ = end_;
  size_t best_open = SIZE_MAX, best_close = SIZE_MAX;
  for (size_t i = 0; i + 1 < end_; ++i) {
    if (!(isIdent(i, "TEST_F") || isIdent(i, "TEST_P") || isIdent(i, "TEST")) || !isPunct(i + 1, "("))
      continue;
    size_t close = matching(i + 1);
    if (close >= end_ || !isPunct(close + 1, "{")) continue;
    size_t body_end = matching(close + 1);
    std::string name;
    for (size_t k = i + 2; k < close; ++k)
      if (isIdent(k)) name += (name.empty() ? "" : ".") + std::string(str(k));
    bool builds = false;
    for (size_t k = close + 1; k < body_end && !builds; ++k) {
      std::string_view s = str(k);
      builds = s == "addInput" || s == "makeSymbolicTensor" || s == "makeContigTensor" ||
               s == "makeConcreteTensor" || s == "makeContigConcreteTensor" || s == "TensorViewBuilder" ||
               s == "makeDummyTensor";
    }
    if (best_open == SIZE_MAX || (builds && test_name_.empty())) {
      best_open = close + 1;
      best_close = body_end;
      if (builds) test_name_ = name;
    }
    i = body_end < end_ ? body_end : i;
  }
  if (best_open == SIZE_MAX) {
    p_ = 0;
    return true;
  }
  fileScope(best_open, best_close);
  fixtureClass();
  p_ = best_open + 1;
  if (best_close >= end_) {
    // A cut paste: the body runs to the end of the text.
    cut_ = true;
    sink_.report(
        Severity::Warning, DiagCode::ImportSyntax,
        "the test's body is not closed (a cut paste): its statements up to the end of the text are read",
        loc(best_open));
    return true;
  }
  end_ = best_close;
  return true;
}

std::optional<Fusion> Reader::run() {
  if (lex_.unterminated() != SIZE_MAX)
    sink_.report(
        Severity::Warning, DiagCode::ImportSyntax,
        "a comment or literal here is not closed (a cut paste): the rest of the text is read as part of it",
        text_.location(lex_.unterminated()));
  if (!findBody()) return std::nullopt;
  if (!block(end_)) return std::nullopt;
  if (f_.tensors.empty()) {
    error(DiagCode::ImportSyntax,
          "the test builds no tensor: expected makeSymbolicTensor(...), makeContigTensor(...), "
          "makeConcreteTensor(...) or TensorViewBuilder()...build()",
          0);
    return std::nullopt;
  }
  b_.finish();
  if (f_.inputs.empty()) {
    // Bare statements may leave out addInput: the tensors built by the builders are the inputs.
    for (TensorId t = 0; t < f_.tensors.size(); ++t)
      if (f_.tensors[t].definition == kNone) f_.inputs.push_back(ValueRef::tensor(t));
    if (!f_.inputs.empty())
      note("the test adds no input: the tensors it builds with no definition are taken as the inputs", 0);
  }
  if (f_.outputs.empty()) {
    std::vector<char> used(f_.tensors.size(), 0);
    for (const Expr& e : f_.exprs)
      for (const ValueRef& v : e.inputs)
        if (v.isTensor()) used[v.id] = 1;
    for (TensorId t = 0; t < f_.tensors.size(); ++t)
      if (f_.tensors[t].definition != kNone && !used[t]) f_.outputs.push_back(t);
    if (!f_.outputs.empty())
      note("the test adds no output: the tensors nothing uses are taken as the outputs", 0);
  }
  b_.finish();
  if (!test_name_.empty()) f_.provenance.emplace_back("cpp_test", test_name_);
  if (!executor_.empty()) f_.provenance.emplace_back("cpp_executor", executor_);
  if (!executor_detail_.empty()) f_.provenance.emplace_back("cpp_executor_detail", executor_detail_);
  ReproOrigin origin;
  origin.kind = "cpp-test";
  origin.frontend = "cpp";
  origin.executor = executor_;  // "fec", "mde", "mde-fec", "hostir" or "" (one kernel scheduled by hand)
  origin.keywords = spelled_;
  origin.detail = test_name_.empty() ? executor_detail_
                                     : test_name_ + (executor_detail_.empty() ? "" : "; " + executor_detail_);
  // A test for nvFuser in PyTorch's tree ran only before nvFuser's own repository, whose first
  // commit starts the modelled history (pipeline/nvfuser_commits.tsv).
  if (!pre_repo_.empty()) {
    origin.printed_before = std::string(kHistoryFirstCommit);
    origin.detail = "written for nvFuser in PyTorch's tree (it uses " + pre_repo_ +
                    "), before nvFuser's own repository" +
                    (origin.detail.empty() ? "" : "; " + origin.detail);
  }
  f_.origin = origin;
  if (f_.name.empty() && !test_name_.empty()) f_.name = test_name_.substr(test_name_.find('.') + 1);
  return std::move(f_);
}

// ---------------------------------------------------------------- statements

bool Reader::block(size_t end) {
  size_t saved_end = end_;
  end_ = end;
  while (p_ < end_ && !returned_) {
    const size_t at = p_, tensors = f_.tensors.size(), exprs = f_.exprs.size();
    if (cut_ && end_ == saved_end && cutStatement()) {
      // Left out when it reads nothing of the fusion (its tensors, scalars, the fusion itself) and
      // makes none of its values; otherwise the fusion is incomplete and reading the statement
      // reports where the text ends.
      bool fusion = false;
      for (size_t i = p_; i < end_ && !fusion; ++i) {
        if (!isIdent(i)) continue;
        const std::string_view w = str(i);
        if (w == "TensorView" || w == "Val" || w == "IterDomain" || w == "TensorViewBuilder") {
          fusion = true;
          break;
        }
        auto v = vars_.find(std::string(w));
        fusion = v != vars_.end() && (v->second.k == Value::K::Tensor || v->second.k == Value::K::Scalar ||
                                      v->second.k == Value::K::Fusion || v->second.k == Value::K::Axis);
      }
      if (!fusion) {
        sink_.report(
            Severity::Warning, DiagCode::ImportSyntax,
            "the text ends inside this statement (a cut paste): it reads nothing of the fusion, so it "
            "is left out",
            loc(at));
        p_ = end_;
        break;
      }
    }
    const bool ok = statement();
    // What the statement built is located at its first token (an inner block's statements
    // located theirs first).
    const auto off = static_cast<uint32_t>(text_.sourceOffset(tok(at).off));
    map_.tensors.resize(f_.tensors.size(), SourceMap::kUnknown);
    map_.exprs.resize(f_.exprs.size(), SourceMap::kUnknown);
    for (size_t t = tensors; t < f_.tensors.size(); ++t)
      if (map_.tensors[t] == SourceMap::kUnknown) map_.tensors[t] = off;
    for (size_t e = exprs; e < f_.exprs.size(); ++e)
      if (map_.exprs[e] == SourceMap::kUnknown) map_.exprs[e] = off;
    if (!ok) {
      end_ = saved_end;
      return false;
    }
  }
  end_ = saved_end;
  return true;
}

bool Reader::cutStatement() const {
  for (size_t i = p_; i < end_; ++i) {
    if (isPunct(i, ";")) return false;
    if (isPunct(i, "(") || isPunct(i, "[") || isPunct(i, "{")) {
      const size_t close = matching(i);
      if (close >= end_) return true;
      if (isPunct(i, "{") && close + 1 == end_) return false;  // a block ends the text
      i = close;
    }
  }
  return true;
}

void Reader::skippedStatement(size_t from, const std::string& what) {
  if (std::find(skipped_kinds_.begin(), skipped_kinds_.end(), what) != skipped_kinds_.end()) return;
  skipped_kinds_.push_back(what);
  if (++skip_notes_ > 24) return;
  note("skipped `" + snippet(from, p_) + "`: " + what, from);
}

// Skips one statement without running it.
void Reader::skipStatement(const std::string& why, size_t from) {
  if (isPunct(p_, "{")) {
    p_ = std::min(matching(p_) + 1, end_);
  } else if (isIdent(p_, "if") || isIdent(p_, "for") || isIdent(p_, "while") || isIdent(p_, "switch")) {
    ++p_;
    if (isPunct(p_, "(")) p_ = std::min(matching(p_) + 1, end_);
    skipStatement("", from);
    if (isIdent(p_, "else")) {
      ++p_;
      skipStatement("", from);
    }
  } else {
    int depth = 0;
    while (p_ < end_) {
      if (isPunct(p_, "(") || isPunct(p_, "{") || isPunct(p_, "[")) ++depth;
      if (isPunct(p_, ")") || isPunct(p_, "}") || isPunct(p_, "]")) --depth;
      if (depth <= 0 && isPunct(p_, ";")) {
        ++p_;
        break;
      }
      if (depth < 0) break;
      ++p_;
    }
  }
  if (!why.empty()) skippedStatement(from, why);
}

bool Reader::statement() {
  size_t at = p_;
  if (eat(";")) return true;
  if (isPunct(p_, "{")) {
    size_t close = matching(p_);
    ++p_;
    if (!block(close)) return false;
    p_ = std::min(close + 1, end_);
    return true;
  }
  if (isIdent(p_, "for")) return forStatement();
  if (isIdent(p_, "std") && isPunct(p_ + 1, "::") && isIdent(p_ + 2, "transform") && transformStatement())
    return true;
  if (isIdent(p_, "if")) return ifStatement();
  if (isIdent(p_, "return")) {
    skipStatement("", at);
    returned_ = true;
    return true;
  }
  if (isIdent(p_, "while") || isIdent(p_, "do") || isIdent(p_, "switch") || isIdent(p_, "try")) {
    skipStatement("a loop or branch the import does not run", at);
    return true;
  }
  if (isIdent(p_, "using") || isIdent(p_, "namespace") || isIdent(p_, "static_assert") ||
      isIdent(p_, "typedef") || isIdent(p_, "template") || isIdent(p_, "class") || isIdent(p_, "struct")) {
    skipStatement("a declaration that builds nothing", at);
    return true;
  }
  size_t te = typeEnd(p_);
  if (te > p_ && ((isIdent(te) && (isPunct(te + 1, "=") || isPunct(te + 1, ";") || isPunct(te + 1, "(") ||
                                   isPunct(te + 1, "{") || isPunct(te + 1, ",") || isPunct(te + 1, "[") ||
                                   (te + 1 < end_ && startsLine(te + 1) && !startsLine(te)))) ||
                  (isPunct(te, "[") && structuredBinding(p_, te))))
    return declaration(te);
  auto v = expr();
  if (!v) return false;
  if (!eat(";")) {
    // The text ends right after a whole expression: a paste cut before its last `;`.
    if (p_ >= end_ && end_ + 1 >= toks_.size()) {
      sink_.report(
          Severity::Warning, DiagCode::ImportSyntax,
          "the text ends before this statement's `;` (a cut paste?): the statement is read as it stands",
          loc(at));
    } else if (!endStatement()) {
      return false;
    }
  }
  if (v->k == Value::K::Opaque) skippedStatement(at, "not about the fusion definition (" + v->s + ")");
  return true;
}

size_t Reader::typeEnd(size_t i) const {
  size_t j = i;
  while (isIdent(j) && isStorageWord(str(j)) && !(str(j) == "long" && !isIdent(j + 1))) ++j;
  if (!isIdent(j)) return j > i && (isPunct(j, "[")) ? j : i;
  if (str(j) == "auto" || str(j) == "int" || str(j) == "bool" || str(j) == "double" || str(j) == "float" ||
      str(j) == "char" || str(j) == "size_t" || str(j) == "int64_t" || str(j) == "int32_t" ||
      str(j) == "long") {
    ++j;
  } else {
    ++j;
    while (isPunct(j, "::") && isIdent(j + 1)) j += 2;
    if (isPunct(j, "<")) {
      size_t close = matching(j);
      if (close >= end_) return i;
      // `Name<...> x = ...;` declares x even where Name is no template the import knows (a typo
      // in a paste, `std::vecotr<int>`): nothing else reads that way.
      if (!isTemplateName(str(j - 1)) &&
          !(isIdent(close + 1) &&
            (isPunct(close + 2, "=") || isPunct(close + 2, ";") || isPunct(close + 2, "{"))))
        return i;
      j = close + 1;
      while (isPunct(j, "::") && isIdent(j + 1)) j += 2;
    }
  }
  while (isPunct(j, "*") || isPunct(j, "&") || isPunct(j, "&&") || isIdent(j, "const")) ++j;
  return j;
}

bool Reader::structuredBinding(size_t i, size_t te) const {
  for (size_t k = i; k < te; ++k)
    if (isIdent(k, "auto")) return true;
  return false;
}

bool Reader::declaration(size_t te) {
  size_t at = p_;
  std::string type = snippet(p_, te);
  std::string base;  // the type's name without qualifiers, template arguments and pointers
  for (size_t k = p_; k < te; ++k) {
    if (isPunct(k, "<")) {
      k = std::min(matching(k), te);
      continue;
    }
    if (isIdent(k) && !isStorageWord(str(k))) base = std::string(str(k));
  }
  if (base == "auto" || base.empty()) base = "";
  for (size_t k = p_; k + 1 < te; ++k)
    if (isIdent(k) && isPunct(k + 1, "<") && !isTemplateName(str(k))) {
      const std::vector<std::string> known(std::begin(kTemplateNames), std::end(kTemplateNames));
      note("`" + type + "` is a type the import does not know" + didYouMean(str(k), known) +
               ": the declaration keeps its initializer",
           k);
      break;
    }
  p_ = te;
  if (isPunct(p_, "[")) {  // auto [a, b, c] = expr;
    std::vector<std::string> names;
    ++p_;
    while (isIdent(p_)) {
      names.emplace_back(str(p_++));
      if (!eat(",")) break;
    }
    if (!expect("]") || !expect("=")) return false;
    auto v = expr();
    if (!v) return false;
    bindElements(names, *v, at);
    return endStatement();
  }
  while (true) {
    bool pointer = !type.empty() && type.back() == '*';
    while (isPunct(p_, "*") || isPunct(p_, "&")) {  // `IterDomain *a, *b;`
      pointer = pointer || isPunct(p_, "*");
      ++p_;
    }
    if (!isIdent(p_))
      return error(DiagCode::ImportSyntax, "expected a name in the declaration" + found(), p_);
    std::string name(str(p_++));
    while (isPunct(p_, "[")) p_ = std::min(matching(p_) + 1, end_);  // an array declarator
    Value v;
    size_t vat = p_;
    size_t init_at = p_;
    if (eat("=")) {
      init_at = p_;
      auto x = expr();
      if (!x) return false;
      v = *x;
    } else if (isPunct(p_, "(") || isPunct(p_, "{")) {
      std::vector<Value> args;
      if (isPunct(p_, "(")) {
        if (!callArgs(args, 0)) return false;
        // `std::vector<int64_t> sizes(3, kSize);`: n copies of a value (of 0 without one).
        if (base == "vector" && !args.empty() && args.size() <= 2 && args[0].k == Value::K::Int &&
            args[0].i >= 0 && args[0].i <= 64 && (args.size() == 1 || args[1].k != Value::K::List)) {
          Value list;
          list.k = Value::K::List;
          list.items.assign(static_cast<size_t>(args[0].i), args.size() == 2 ? args[1] : Value::integer(0));
          vars_[name] = list;
          if (eat(",")) continue;
          return endStatement();
        }
        // `std::vector<int64_t> shape({n, h, l, e});`, `std::vector<int64_t> b(a);`: a copy of the list.
        if (base == "vector" && args.size() == 1 && args[0].k == Value::K::List) {
          vars_[name] = args[0];
          if (eat(",")) continue;
          return endStatement();
        }
      } else if (isParamsType(base) && isPunct(p_ + 1, ".")) {
        // `hir::HostIrExecutorParams params{.use_fusion_executor_cache = true, ...};`
        Value params;
        params.k = Value::K::Params;
        params.s = base;
        if (!designatedInit("", params)) return false;
        vars_[name] = params;
        if (eat(",")) continue;
        return endStatement();
      } else {
        auto x = primary(0);  // a braced list
        if (!x) return false;
        // `std::vector<int64_t> shape{d, 4, 8};`: the list itself.
        if (isTemplateName(base) && base != "unique_ptr" && base != "shared_ptr" && base != "optional" &&
            base != "function") {
          vars_[name] = *x;
          if (eat(",")) continue;
          return endStatement();
        }
        args = x->k == Value::K::List ? x->items : std::vector<Value>{*x};
      }
      auto x = call(base.empty() ? type : base, args, vat);
      if (!x) return false;
      v = *x;
    } else if (pointer) {  // `TensorView *tv0, *tv1;`: assigned later
      v = Value();
    } else if (base == "vector") {  // `std::vector<Val*> shape;`: empty
      v.k = Value::K::List;
    } else {
      std::vector<Value> none;
      auto x = call(base, none, at);
      if (!x) return false;
      v = *x;
      if (v.k == Value::K::Opaque && base != "Fusion") v.s = type;
    }
    if (v.k == Value::K::Opaque && (base == "FusionGuard" || v.s == "FusionGuard")) v.k = Value::K::None;
    if ((base == "int" || base == "int64_t" || base == "size_t" || base == "long" || base == "int32_t") &&
        v.k == Value::K::Float) {
      auto i = truncatedInt(v.f, init_at, "`" + type + " " + name + "`");
      if (!i) return false;
      v = *i;
    }
    vars_[name] = v;
    if (v.k == Value::K::Opaque) skippedStatement(at, "not about the fusion definition (" + v.s + ")");
    if (eat(",")) continue;
    return endStatement();
  }
}

bool Reader::designatedInit(const std::string& prefix, Value& into) {
  if (!expect("{")) return false;
  while (!isPunct(p_, "}")) {
    if (!expect(".")) return false;
    if (!isIdent(p_)) return error(DiagCode::ImportSyntax, "expected a member name" + found(), p_);
    std::string field = prefix + std::string(str(p_++));
    if (!expect("=")) return false;
    if (isPunct(p_, "{") && isPunct(p_ + 1, ".")) {
      if (!designatedInit(field + ".", into)) return false;
    } else {
      auto v = expr();
      if (!v) return false;
      into.fields.push_back(Field{field, *v});
    }
    if (!eat(",")) break;
  }
  return expect("}");
}

std::optional<Value> Reader::exprIn(size_t from, size_t to) {
  p_ = from;
  size_t saved_end = end_;
  end_ = to;
  auto v = expr();
  end_ = saved_end;
  return v;
}

// Evaluates tokens [from, to) as a condition; `value` is set when the result is known.
bool Reader::condition(size_t from, size_t to, std::optional<bool>& value) {
  int before = errors_;
  auto v = exprIn(from, to);
  p_ = to + 1;
  if (errors_ != before) return false;
  value.reset();
  if (v && (v->k == Value::K::Bool || v->k == Value::K::Int)) value = v->i != 0;
  return true;
}

bool Reader::ifStatement() {
  size_t at = p_++;
  if (isIdent(p_, "constexpr")) ++p_;
  if (!isPunct(p_, "(")) return error(DiagCode::ImportSyntax, "expected '(' after if", p_);
  std::optional<bool> cond;
  size_t close = matching(p_);
  if (close >= end_) return error(DiagCode::ImportSyntax, "unclosed '('", p_);
  if (!condition(p_ + 1, close, cond)) return false;
  if (!cond) {
    size_t from = at;
    skipStatement("", from);
    if (isIdent(p_, "else")) {
      ++p_;
      skipStatement("", from);
    }
    skippedStatement(from, "its condition is not known when the fusion is built");
    return true;
  }
  if (*cond) {
    if (!statement()) return false;
    if (isIdent(p_, "else")) {
      ++p_;
      skipStatement("", p_);
    }
  } else {
    skipStatement("", p_);
    if (isIdent(p_, "else")) {
      ++p_;
      if (!statement()) return false;
    }
  }
  return true;
}

void Reader::bindElements(const std::vector<std::string>& names, const Value& v, size_t at) {
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k].empty()) continue;
    if (v.k == Value::K::List && k < v.items.size())
      vars_[names[k]] = v.items[k];
    else if (v.k == Value::K::Struct && k < v.fields.size())
      vars_[names[k]] = v.fields[k].value;
    else
      vars_[names[k]] = Value::opaque(snippet(at, p_), at);
  }
}

bool Reader::transformStatement() {
  size_t open = p_ + 3;
  if (!isPunct(open, "(")) return false;
  size_t close = matching(open);
  if (close >= end_ || !isPunct(close + 1, ";")) return false;
  // The four arguments, split at top-level commas.
  std::vector<std::pair<size_t, size_t>> args;
  size_t from = open + 1;
  int depth = 0;
  for (size_t k = open + 1; k <= close; ++k) {
    if (isPunct(k, "(") || isPunct(k, "{") || isPunct(k, "[")) ++depth;
    if (k < close && (isPunct(k, ")") || isPunct(k, "}") || isPunct(k, "]"))) --depth;
    if ((depth == 0 && isPunct(k, ",")) || k == close) {
      args.emplace_back(from, k);
      from = k + 1;
    }
  }
  if (args.size() != 4) return false;
  // `x.begin()` / `x.end()` / `std::begin(x)`: the container's name.
  auto container = [&](std::pair<size_t, size_t> a, std::string_view which) -> std::string {
    auto [b, e] = a;
    if (e == b + 5 && isIdent(b) && isPunct(b + 1, ".") &&
        (isIdent(b + 2, which) || isIdent(b + 2, "c" + std::string(which))) && isPunct(b + 3, "(") &&
        isPunct(b + 4, ")"))
      return std::string(str(b));
    if (e == b + 6 && isIdent(b, "std") && isPunct(b + 1, "::") && isIdent(b + 2, which) &&
        isPunct(b + 3, "(") && isIdent(b + 4) && isPunct(b + 5, ")"))
      return std::string(str(b + 4));
    return "";
  };
  std::string in = container(args[0], "begin");
  if (in.empty() || container(args[1], "end") != in) return false;
  auto [ob, oe] = args[2];
  bool append = false;
  std::string out = container(args[2], "begin");
  if (out.empty() && oe == ob + 6 && isIdent(ob, "std") && isPunct(ob + 1, "::") &&
      isIdent(ob + 2, "back_inserter") && isPunct(ob + 3, "(") && isIdent(ob + 4) && isPunct(ob + 5, ")")) {
    out = std::string(str(ob + 4));
    append = true;
  }
  if (out.empty()) return false;
  // The lambda: `[captures](T x) [-> R] { return E; }`.
  auto [lb, le] = args[3];
  if (!isPunct(lb, "[")) return false;
  size_t params = matching(lb) + 1;
  if (!isPunct(params, "(")) return false;
  size_t params_end = matching(params);
  if (params_end >= le || !isIdent(params_end - 1)) return false;
  std::string param(str(params_end - 1));
  size_t body = params_end + 1;
  while (body < le && !isPunct(body, "{")) ++body;
  if (body >= le || matching(body) + 1 != le || !isIdent(body + 1, "return") || !isPunct(le - 2, ";"))
    return false;
  for (size_t k = body + 2; k < le - 2; ++k)
    if (isPunct(k, ";")) return false;  // one statement only
  auto it = vars_.find(in);
  if (it == vars_.end() || it->second.k != Value::K::List) return false;
  std::vector<Value> items = it->second.items, results;
  std::optional<Value> saved;
  if (auto p = vars_.find(param); p != vars_.end()) saved = p->second;
  size_t saved_end = end_;
  for (const Value& item : items) {
    vars_[param] = item;
    p_ = body + 2;
    end_ = le - 2;
    auto v = expr();
    end_ = saved_end;
    if (!v) return false;
    results.push_back(*v);
  }
  if (saved)
    vars_[param] = *saved;
  else
    vars_.erase(param);
  Value& target = vars_[out];
  if (append && target.k == Value::K::List) {
    target.items.insert(target.items.end(), results.begin(), results.end());
  } else if (!append && target.k == Value::K::List && target.items.size() >= results.size()) {
    std::copy(results.begin(), results.end(), target.items.begin());
  } else {
    target = Value();
    target.k = Value::K::List;
    target.items = std::move(results);
  }
  p_ = close + 2;
  return true;
}

bool Reader::forStatement() {
  size_t at = p_++;
  if (!isPunct(p_, "(")) return error(DiagCode::ImportSyntax, "expected '(' after for", p_);
  size_t open = p_, close = matching(open);
  if (close >= end_) return error(DiagCode::ImportSyntax, "unclosed '('", open);
  // Range for: `for (auto* tv : {a, b})`.
  size_t colon = SIZE_MAX;
  int depth = 0;
  for (size_t k = open + 1; k < close; ++k) {
    if (isPunct(k, "(") || isPunct(k, "{") || isPunct(k, "[")) ++depth;
    if (isPunct(k, ")") || isPunct(k, "}") || isPunct(k, "]")) --depth;
    if (depth == 0 && isPunct(k, ":")) {
      colon = k;
      break;
    }
  }
  size_t body = close + 1;
  if (colon != SIZE_MAX) {
    std::string var;
    for (size_t k = open + 1; k < colon; ++k)
      if (isIdent(k)) var = std::string(str(k));
    auto range = exprIn(colon + 1, close);
    if (!range) return false;
    p_ = body;
    if (range->k != Value::K::List) {
      skipStatement("a loop over " + range->s + ", which the import does not follow", at);
      return true;
    }
    std::vector<Value> items = range->items;
    size_t after = body;
    for (const Value& item : items) {
      vars_[var] = item;
      p_ = body;
      if (!statement()) return false;
      after = p_;
    }
    if (items.empty()) {
      p_ = body;
      skipStatement("", body);
      after = p_;
    }
    p_ = after;
    return true;
  }
  // Counted for: `for (int i = 0; i < n; ++i)`.
  size_t semi1 = SIZE_MAX, semi2 = SIZE_MAX;
  for (size_t k = open + 1; k < close; ++k)
    if (isPunct(k, ";")) (semi1 == SIZE_MAX ? semi1 : semi2) = k;
  if (semi1 == SIZE_MAX || semi2 == SIZE_MAX)
    return error(DiagCode::ImportSyntax, "expected `for (init; cond; step)`", open);
  p_ = open + 1;
  if (!statement()) return false;  // the init, through its ';'
  size_t after = SIZE_MAX;
  for (int iter = 0; iter < 4096; ++iter) {
    std::optional<bool> cond;
    if (!condition(semi1 + 1, semi2, cond)) return false;
    if (!cond) {
      p_ = body;
      skipStatement("a loop whose bound is not known when the fusion is built", at);
      return true;
    }
    if (!*cond) break;
    p_ = body;
    if (!statement()) return false;
    after = p_;
    if (!exprIn(semi2 + 1, close)) return false;
  }
  p_ = body;
  if (after == SIZE_MAX) {
    skipStatement("", body);
    after = p_;
  }
  p_ = after;
  return true;
}

}  // namespace fc::cpp_text
