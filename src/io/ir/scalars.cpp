// Extents and scalar operands of printed IR (see reader.h).
//
// An expression is read into a small tree first, then lowered to the fusion's scalars: numbers,
// symbols (`i3`, `d11`), typed constants (`float(0)`, `__half(-inf)`), `+ - * / %`, `ceilDiv`,
// `max`/`fmax`, `min`/`fmin`, `size(T, d)`, and casts to an integer type
// (`(nvfuser_index_t)(i3)`, `__to_index(i4)`), which keep the value. What the fusion cannot hold
// (comparisons, `where`, casts of a non-constant to a float type, the metadata forms `T0.size[1]`
// and `( (( (( getMetaData(T0) )).logical_size ))[1] )`, other functions) becomes a fresh
// symbol `x<n>` standing for that text, with a note; a scalar statement (`i10 = ...;`) whose value
// is such a text keeps its own name. Either records the scalars the text's names stand for as its
// leaves (ir/uncomputed_scalar.h), unless it reads a tensor or metadata. Comparisons and `where` of
// constants fold.
//
// Complexity: linear in the expression; nesting is limited to 64 levels.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "io/ir/reader.h"
#include "io/scalar_expr.h"
#include "ir/constant_scalar.h"
#include "ir/op_rules.h"
#include "ir/uncomputed_scalar.h"
#include "support/checked.h"

namespace fc::ir_text {
namespace {

constexpr int kMaxDepth = 64;

struct Node {
  enum class Kind : uint8_t { Number, Ident, Call, Binary, Unary, CCast, Member, Index };
  Kind kind = Kind::Number;
  std::string text;  // number, name, operator, function, cast type or member name
  std::vector<int> kids;
  size_t tok = 0;
};

std::string shorten(const std::string& s) { return s.size() > 80 ? s.substr(0, 77) + "..." : s; }

}  // namespace

// The tree parser and the lowering (a friend of the reader).
class Reader::ScalarReader {
 public:
  explicit ScalarReader(Reader& r) : r_(r) {}

  // Parses one expression at the reader's position; -1 on a syntax error (reported).
  int parse() { return orExpr(0); }

  std::string render(int n) const {
    const Node& s = nodes_[static_cast<size_t>(n)];
    switch (s.kind) {
      case Node::Kind::Number:
      case Node::Kind::Ident: return s.text;
      case Node::Kind::Unary: return s.text + render(s.kids[0]);
      case Node::Kind::Binary:
        return "( " + render(s.kids[0]) + " " + s.text + " " + render(s.kids[1]) + " )";
      case Node::Kind::CCast: return "( (" + s.text + ")(" + render(s.kids[0]) + ") )";
      case Node::Kind::Member: return render(s.kids[0]) + "." + s.text;
      case Node::Kind::Index: return render(s.kids[0]) + "[" + render(s.kids[1]) + "]";
      case Node::Kind::Call: {
        std::string out = s.text + "(";
        for (size_t i = 0; i < s.kids.size(); ++i) out += (i ? ", " : "") + render(s.kids[i]);
        return out + ")";
      }
    }
    return "";
  }

  // The scalars the names of node `n` stand for, appended to `out`; false when the tree reads
  // something that is no scalar (a tensor, a member or an index of metadata). Called after lower(n)
  // has resolved every name it reached.
  bool leaves(int n, std::vector<ScalarId>& out) {
    const Node& s = nodes_[static_cast<size_t>(n)];
    switch (s.kind) {
      case Node::Kind::Number: return true;
      case Node::Kind::Ident: {
        if (s.text == "true" || s.text == "false" || s.text == "inf" || s.text == "nan") return true;
        if (s.text.size() > 1 && s.text[0] == 'T' &&
            s.text.find_first_not_of("0123456789", 1) == std::string::npos)
          return false;
        std::optional<ScalarId> v = r_.named(s.text, s.tok);
        if (!v || *v == kNone) return false;
        out.push_back(*v);
        return true;
      }
      case Node::Kind::Member:
      case Node::Kind::Index: return false;
      case Node::Kind::Unary:
      case Node::Kind::Binary:
      case Node::Kind::CCast:
      case Node::Kind::Call:
        for (int k : s.kids)
          if (!leaves(k, out)) return false;
        return true;
    }
    return false;
  }

  // The scalar for node `n`: kNone when the fusion cannot hold it; nullopt after an error.
  std::optional<ScalarId> lower(int n) {
    const Node& s = nodes_[static_cast<size_t>(n)];
    Fusion& f = r_.f_;
    switch (s.kind) {
      case Node::Kind::Number: return number(s);
      case Node::Kind::Ident: {
        if (s.text == "true" || s.text == "false") return f.addConstBool(s.text == "true");
        if (s.text == "inf") return f.addConstFloat(INFINITY, DType::Double);
        if (s.text == "nan") return f.addConstFloat(NAN, DType::Double);
        if (s.text.size() > 1 && s.text[0] == 'T' &&
            s.text.find_first_not_of("0123456789", 1) == std::string::npos) {
          r_.error(DiagCode::ImportSyntax, "tensor " + s.text + " is printed without its domain", s.tok);
          return std::nullopt;
        }
        return r_.named(s.text, s.tok);
      }
      case Node::Kind::Unary: {
        const Node& k = nodes_[static_cast<size_t>(s.kids[0])];
        if (s.text == "-" && k.kind == Node::Kind::Number) return number(k, true);
        auto a = lower(s.kids[0]);
        if (!a || *a == kNone) return a;
        if (s.text == "-") {
          const Scalar& sc = f.scalars[*a];
          // A constant's negation is the constant of the other sign, as the JSON reader folds it
          // (scalar_expr.cpp), so that a saved import reads back the same (`--1` is 1).
          if (sc.kind == ScalarKind::Constant && sc.value.kind == ConstValue::Kind::Float)
            return f.addConstFloat(-sc.value.f, sc.dtype);
          if (sc.kind == ScalarKind::Constant && sc.value.kind == ConstValue::Kind::Int &&
              sc.value.i != std::numeric_limits<int64_t>::min())
            return f.addConstInt(-sc.value.i, sc.dtype);
          return f.addDerived(ScalarOp::Neg, *a, kNone, f.scalars[*a].dtype);
        }
        if (auto v = r_.intValue(*a)) return f.addConstBool(*v == 0);
        return kNone;
      }
      case Node::Kind::Binary: return binary(s);
      case Node::Kind::CCast: return cast(s.text, s.kids[0]);
      case Node::Kind::Call: return call(s);
      case Node::Kind::Index:  // T0.size[1], getMetaData(T0).logical_size[1]: not modelled
      case Node::Kind::Member: return kNone;
    }
    return kNone;
  }

 private:
  bool fail(const std::string& msg) {
    r_.error(DiagCode::ImportSyntax, msg + r_.found(), r_.p_);
    return false;
  }
  int add(Node n) {
    if (nodes_.size() >= 1024) return fail("scalar expression too long"), -1;
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size() - 1);
  }
  int node(Node::Kind k, std::string text, std::vector<int> kids, size_t tok) {
    Node n;
    n.kind = k;
    n.text = std::move(text);
    n.kids = std::move(kids);
    n.tok = tok;
    return add(std::move(n));
  }

  // Precedence, loosest first: || && comparisons + - * / % unary postfix primary.
  int orExpr(int d) { return binaryLevel(d, 0); }
  int binaryLevel(int d, int level) {
    static const std::vector<std::vector<std::string_view>> ops = {
        {"||"}, {"&&"}, {"==", "!=", "<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(ops.size())) return unary(d);
    if (d > kMaxDepth) return fail("scalar expression nested too deeply"), -1;
    int a = binaryLevel(d, level + 1);
    if (a < 0) return -1;
    for (int guard = 0; guard < 100000; ++guard) {
      std::string_view op;
      for (std::string_view o : ops[static_cast<size_t>(level)])
        if (r_.isPunct(r_.p_, o)) op = o;
      if (op.empty()) return a;
      size_t at = r_.p_++;
      int b = binaryLevel(d, level + 1);
      if (b < 0) return -1;
      a = node(Node::Kind::Binary, std::string(op), {a, b}, at);
      if (a < 0) return -1;
    }
    return a;
  }
  int unary(int d) {
    if (d > kMaxDepth) return fail("scalar expression nested too deeply"), -1;
    if (r_.isPunct(r_.p_, "-") || r_.isPunct(r_.p_, "!")) {
      size_t at = r_.p_;
      std::string op(r_.str(r_.p_++));
      if (++unary_run_ > 4 * kMaxDepth) return fail("scalar expression nested too deeply"), -1;
      int a = unary(d);
      if (a < 0) return -1;
      return node(Node::Kind::Unary, op, {a}, at);
    }
    return postfix(d);
  }
  int postfix(int d) {
    int a = primary(d);
    if (d > kMaxDepth) return fail("scalar expression nested too deeply"), -1;
    for (int guard = 0; a >= 0 && guard < 64; ++guard) {
      if (r_.isPunct(r_.p_, ".") && r_.isIdent(r_.p_ + 1)) {
        size_t at = r_.p_;
        std::string m(r_.str(r_.p_ + 1));
        r_.p_ += 2;
        a = node(Node::Kind::Member, m, {a}, at);
        if (a < 0) return -1;
      } else if (r_.isPunct(r_.p_, "[")) {
        size_t at = r_.p_++;
        int k = orExpr(d + 1);
        if (k < 0 || !r_.expect("]")) return -1;
        a = node(Node::Kind::Index, "", {a, k}, at);
        if (a < 0) return -1;
      } else {
        break;
      }
    }
    return a;
  }
  int primary(int d) {
    if (d > kMaxDepth) return fail("scalar expression nested too deeply"), -1;
    size_t at = r_.p_;
    const Token& t = r_.tok(at);
    if (r_.atEnd()) return fail("expected a scalar"), -1;
    if (t.kind == Tok::Number) {
      ++r_.p_;
      return node(Node::Kind::Number, std::string(r_.str(at)), {}, at);
    }
    if (t.kind == Tok::Ident) {
      std::string name(r_.str(at));
      ++r_.p_;
      if (r_.isPunct(r_.p_, "(")) {
        ++r_.p_;
        std::vector<int> kids;
        if (!r_.eat(")")) {
          while (true) {
            int k = orExpr(d + 1);
            if (k < 0) return -1;
            kids.push_back(k);
            if (r_.eat(",")) continue;
            if (!r_.expect(")")) return -1;
            break;
          }
        }
        return node(Node::Kind::Call, name, std::move(kids), at);
      }
      return node(Node::Kind::Ident, name, {}, at);
    }
    if (r_.isPunct(at, "(")) {
      // `(type)(x)`: a C-style cast; else a parenthesized expression.
      if (r_.isIdent(at + 1) && cppDType(r_.str(at + 1)) && r_.isPunct(at + 2, ")") &&
          r_.isPunct(at + 3, "(")) {
        std::string type(r_.str(at + 1));
        r_.p_ += 4;
        int k = orExpr(d + 1);
        if (k < 0 || !r_.expect(")")) return -1;
        return node(Node::Kind::CCast, type, {k}, at);
      }
      ++r_.p_;
      int k = orExpr(d + 1);
      if (k < 0) return -1;
      if (r_.eat(",")) {
        // `(re,im)`: std::complex's operator<< inside a complex constant,
        // `std::complex<double>((3,0.5))`; a call with no name.
        int im = orExpr(d + 1);
        if (im < 0 || !r_.expect(")")) return -1;
        return node(Node::Kind::Call, "", {k, im}, at);
      }
      if (!r_.expect(")")) return -1;
      return k;
    }
    return fail("expected a scalar"), -1;
  }

  std::optional<ScalarId> number(const Node& s, bool negate = false) {
    std::string lit = s.text;
    while (!lit.empty() && std::strchr("LlUuFf", lit.back()) && lit.size() > 1 &&
           !(lit[0] == '0' && lit.size() > 1 && (lit[1] == 'x' || lit[1] == 'X')))
      lit.pop_back();
    bool is_float =
        lit.find_first_of(".eE") != std::string::npos && lit.find_first_of("xX") == std::string::npos;
    errno = 0;
    if (is_float) {
      double v = std::strtod(lit.c_str(), nullptr);
      return r_.f_.addConstFloat(negate ? -v : v, DType::Double);
    }
    char* endp = nullptr;
    unsigned long long u = std::strtoull(lit.c_str(), &endp, 0);
    if (errno == ERANGE || u > static_cast<unsigned long long>(INT64_MAX) + (negate ? 1 : 0)) {
      r_.error(DiagCode::ImportSyntax,
               "integer " + (negate ? "-" : std::string()) + lit + " does not fit in 64 bits", s.tok);
      return std::nullopt;
    }
    int64_t v = negate ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
    return r_.f_.addConstInt(v, DType::Index);
  }

  std::optional<double> constFloat(ScalarId s) const {
    const Scalar& sc = r_.f_.scalars[s];
    if (sc.kind != ScalarKind::Constant) return std::nullopt;
    return sc.value.kind == ConstValue::Kind::Float ? sc.value.f : static_cast<double>(sc.value.i);
  }

  std::optional<ScalarId> binary(const Node& s) {
    auto a = lower(s.kids[0]);
    if (!a) return std::nullopt;
    auto b = lower(s.kids[1]);
    if (!b) return std::nullopt;
    if (*a == kNone || *b == kNone) return kNone;
    Fusion& f = r_.f_;
    ScalarOp op = ScalarOp::None;
    if (s.text == "+") op = ScalarOp::Add;
    if (s.text == "-") op = ScalarOp::Sub;
    if (s.text == "*") op = ScalarOp::Mul;
    if (s.text == "/") op = ScalarOp::Div;
    if (s.text == "%") op = ScalarOp::Mod;
    if (op != ScalarOp::None) {
      return f.addDerived(op, *a, *b,
                          derivedScalarDType(f.scalars[*a].dtype, f.scalars[*b].dtype, f.scalars[*a].dtype));
    }
    // Comparisons and logic: fold constants, else not modelled.
    auto x = constFloat(*a), y = constFloat(*b);
    if (!x || !y) return kNone;
    bool v = false;
    if (s.text == "==") v = *x == *y;
    if (s.text == "!=") v = *x != *y;
    if (s.text == "<") v = *x < *y;
    if (s.text == "<=") v = *x <= *y;
    if (s.text == ">") v = *x > *y;
    if (s.text == ">=") v = *x >= *y;
    if (s.text == "&&") v = *x != 0 && *y != 0;
    if (s.text == "||") v = *x != 0 || *y != 0;
    return f.addConstBool(v);
  }

  // A value converted to `type`: integer types keep the value; constants convert; anything
  // else is not modelled.
  std::optional<ScalarId> cast(const std::string& type, int kid) {
    auto a = lower(kid);
    if (!a || *a == kNone) return a;
    auto dt = cppDType(type);
    if (!dt) return kNone;
    Fusion& f = r_.f_;
    const Scalar& sc = f.scalars[*a];
    if (isIntegral(*dt) && isIntegral(sc.dtype) && sc.kind != ScalarKind::Constant) return a;
    // A value that constants determine converts as C++ converts it (ir/constant_scalar.h); a
    // floating value truncates toward zero, and one no int64 holds is undefined there, so not
    // modelled.
    std::optional<ConstValue> cv = constantScalarValue(f, *a);
    if (!cv) return kNone;
    const double v = cv->kind == ConstValue::Kind::Float ? cv->f : static_cast<double>(cv->i);
    if (*dt == DType::Bool) return f.addConstBool(v != 0);
    if (isComplex(*dt))
      return f.addConstComplex(v, isComplex(sc.dtype) && cv->kind == ConstValue::Kind::Float ? cv->im : 0.0,
                               *dt);
    if (isFloatingPoint(*dt)) return f.addConstFloat(v, *dt);
    if (cv->kind != ConstValue::Kind::Float) return f.addConstInt(cv->i, *dt);
    std::optional<int64_t> t = checkedTruncToInt64(v);
    return t ? f.addConstInt(*t, *dt) : kNone;
  }

  // `DTYPE((re,im))`: a complex constant whose parts constants determine; else not modelled.
  std::optional<ScalarId> complexConstant(DType dt, const Node& parts) {
    double v[2] = {0, 0};
    for (size_t k = 0; k < 2 && k < parts.kids.size(); ++k) {
      auto x = lower(parts.kids[k]);
      if (!x || *x == kNone) return x;
      std::optional<ConstValue> cv = constantScalarValue(r_.f_, *x);
      if (!cv) return kNone;
      v[k] = cv->kind == ConstValue::Kind::Float ? cv->f : static_cast<double>(cv->i);
    }
    if (parts.kids.size() != 2) return kNone;
    return r_.f_.addConstComplex(v[0], v[1], dt);
  }

  std::optional<ScalarId> call(const Node& s) {
    Fusion& f = r_.f_;
    const std::string& fn = s.text;
    if (fn == "size" && s.kids.size() == 2) {
      const Node& t = nodes_[static_cast<size_t>(s.kids[0])];
      auto d = lower(s.kids[1]);
      if (!d) return std::nullopt;
      int64_t dim = -1;  // no axis: size() of an unknown or out-of-range axis is not a value
      if (*d != kNone)
        if (auto dv = r_.intValue(*d)) dim = *dv;
      auto it = t.kind == Node::Kind::Ident ? r_.tensors_.find(t.text) : r_.tensors_.end();
      if (it == r_.tensors_.end()) {
        r_.error(DiagCode::ImportUnresolved, "size() of a tensor not printed before: `" + t.text + "`",
                 t.tok);
        return std::nullopt;
      }
      if (dim < 0 || dim > 63) return kNone;
      return f.addSize(it->second, static_cast<int32_t>(dim));
    }
    if (fn == "getMetaData") return kNone;  // only meaningful under .logical_size[k]
    if (std::optional<DType> dt = cppDType(fn);
        dt && isComplex(*dt) && s.kids.size() == 1 &&
        nodes_[static_cast<size_t>(s.kids[0])].kind == Node::Kind::Call &&
        nodes_[static_cast<size_t>(s.kids[0])].text.empty())
      return complexConstant(*dt, nodes_[static_cast<size_t>(s.kids[0])]);
    std::vector<ScalarId> a;
    for (int k : s.kids) {
      auto v = lower(k);
      if (!v) return std::nullopt;
      a.push_back(*v);
    }
    for (ScalarId x : a)
      if (x == kNone) return kNone;
    if (a.size() == 1 && cppDType(fn)) return cast(fn, s.kids[0]);
    if (a.size() == 1 && fn == "__to_index") return cast("nvfuser_index_t", s.kids[0]);
    if (a.size() == 2) {
      ScalarOp op = ScalarOp::None;
      if (fn == "ceilDiv") op = ScalarOp::CeilDiv;
      if (fn == "max" || fn == "fmax") op = ScalarOp::Max;
      if (fn == "min" || fn == "fmin") op = ScalarOp::Min;
      if (op != ScalarOp::None)
        return f.addDerived(
            op, a[0], a[1],
            derivedScalarDType(f.scalars[a[0]].dtype, f.scalars[a[1]].dtype, f.scalars[a[0]].dtype));
    }
    if (a.size() == 3 && fn == "where") {
      if (auto c = constFloat(a[0])) return *c != 0 ? a[1] : a[2];
      return kNone;
    }
    return kNone;
  }

  Reader& r_;
  std::vector<Node> nodes_;
  int unary_run_ = 0;
};

// ---------------------------------------------------------------- names

ScalarId Reader::symbol(std::string_view name) {
  std::string key(name);
  auto it = symbols_.find(key);
  if (it != symbols_.end()) return it->second;
  DType dt = DType::Index;
  if (name[0] == 'd')
    dt = DType::Double;
  else if (name[0] == 'f')
    dt = DType::Float;
  else if (name[0] == 'b')
    dt = DType::Bool;
  // A name the repro format reserves (max, size, inf, ...) gets underscores until it is free.
  // A text that is no name at all (a damaged print) is an error: no underscore fixes it.
  std::string safe = key;
  if (!isScalarName(safe)) {
    if (isScalarName(safe + "_")) {
      safe += "_";
    } else {
      error(DiagCode::ImportSyntax,
            "`" + shorten(key) + "` is read as a scalar but is not a name (letters, digits, _)", p_);
      return f_.addSymbol("unnamed_" + std::to_string(f_.scalars.size()), dt);
    }
  }
  while (symbols_.count(safe) || f_.findScalar(safe)) safe += "_";
  if (safe != key)
    note("the scalar " + key + " is named " + safe + ": " + key + " is a reserved word of repros", p_);
  ScalarId s = f_.addSymbol(safe, dt);
  symbols_.emplace(std::move(key), s);
  return s;
}

std::optional<int64_t> Reader::intValue(ScalarId s) const {
  if (s >= f_.scalars.size()) return std::nullopt;
  const Scalar& sc = f_.scalars[s];
  if (sc.kind != ScalarKind::Constant) return std::nullopt;
  if (sc.value.kind == ConstValue::Kind::Float) return exactInt64(sc.value.f);
  return sc.value.i;
}

bool Reader::isZero(ScalarId s) const {
  auto v = intValue(s);
  return v && *v == 0;
}

ScalarId Reader::opaque(const std::string& text, size_t at,
                        const std::optional<std::vector<ScalarId>>& leaves) {
  auto it = opaque_.find(text);
  if (it != opaque_.end()) return it->second;
  std::string name = "x" + std::to_string(opaque_.size());
  while (symbols_.count(name) || scalar_defs_.count(name)) name += "_";
  ScalarId s = symbol(name);
  opaque_.emplace(text, s);
  // Marked as a value nvFuser computes and fusecheck does not: a verdict that needs it is not
  // decided unless its leaves say nvFuser has them, never an unbound extent (ir/uncomputed_scalar.h).
  markUncomputedScalar(f_, s, text);
  if (leaves) markUncomputedLeaves(f_, s, *leaves);
  note(name + " stands for `" + shorten(text) + "`, a scalar expression fusecheck does not model", at);
  return s;
}

std::optional<ScalarId> Reader::parseScalar(std::string& text, std::optional<std::vector<ScalarId>>* leaves) {
  ScalarReader sr(*this);
  int n = sr.parse();
  if (n < 0) return std::nullopt;
  text = sr.render(n);
  int before = errors_;
  auto v = sr.lower(n);
  if (errors_ != before) return std::nullopt;
  if (v && *v == kNone && leaves) {
    std::vector<ScalarId> found;
    if (sr.leaves(n, found) && errors_ == before)
      *leaves = std::move(found);
    else
      leaves->reset();
  }
  return v;
}

std::optional<ScalarId> Reader::scalar() {
  size_t at = p_;
  std::string text;
  std::optional<std::vector<ScalarId>> leaves;
  auto v = parseScalar(text, &leaves);
  if (!v) return std::nullopt;
  if (*v == kNone) return opaque(text, at, leaves);
  return v;
}

// ---------------------------------------------------------------- scalar statements

// `name = value;` at the start of a line (`i10 = (nvfuser_index_t)(8);`, `b7 = i3 < 0;`).
bool Reader::atScalarStatement() const {
  return tok(p_).line_start && isIdent(p_) && isPunct(p_ + 1, "=") && !atTensor(p_);
}

bool Reader::scalarStatement() {
  p_ = lineEnd(p_);
  return true;
}

// Scalar statements are read when their name is first used, so they are collected first: a host
// program lists its "Index definitions:" after the code that uses them.
void Reader::collectScalarStatements() {
  for (size_t i = begin_; i < end_; ++i)
    if (toks_[i].line_start && toks_[i].kind == Tok::Ident && isPunct(i + 1, "=") && !atTensor(i))
      scalar_defs_.emplace(std::string(str(i)), i + 2);
}

std::optional<ScalarId> Reader::named(std::string_view name, size_t at) {
  std::string key(name);
  auto it = symbols_.find(key);
  if (it != symbols_.end()) return it->second;
  auto def = scalar_defs_.find(key);
  if (def == scalar_defs_.end() || resolving_.size() > 16 ||
      std::find(resolving_.begin(), resolving_.end(), key) != resolving_.end())
    return symbol(name);
  size_t save = p_;
  p_ = def->second;
  resolving_.push_back(key);
  std::string text;
  int before = errors_;
  std::optional<std::vector<ScalarId>> leaves;
  auto v = parseScalar(text, &leaves);
  resolving_.pop_back();
  p_ = save;
  if (errors_ != before || !v) return std::nullopt;
  if (*v != kNone) {
    symbols_.emplace(key, *v);
    return *v;
  }
  ScalarId s = symbol(name);
  markUncomputedScalar(f_, s, text);
  if (leaves) markUncomputedLeaves(f_, s, *leaves);
  note(key + " = " + shorten(text) + " is a scalar expression fusecheck does not model; " + key +
           " is taken as a value of its own",
       at);
  return s;
}

}  // namespace fc::ir_text
