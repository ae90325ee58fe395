// Scalar expression parser and printer (see scalar_expr.h for the contract).
// Parser: recursive descent over the grammar of docs/format.md with an
// explicit depth counter; O(n) in the text. Printer: precedence-driven, O(tree).
#include "io/scalar_expr.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "io/json_scan.h"
#include "ir/op_rules.h"
#include "support/internal_error.h"

namespace fc {
namespace {

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool isReserved(std::string_view s) {
  return s == "inf" || s == "nan" || s == "true" || s == "false" || s == "ceilDiv" || s == "max" ||
         s == "min" || s == "size";
}

// Scans a number at text[pos]: digits ['.' digits*] [(e|E) [+-] digits].
// Returns its length (0 if not a number) and whether it is a float.
size_t scanNumber(std::string_view t, size_t pos, bool& is_float) {
  size_t i = pos;
  is_float = false;
  if (i >= t.size() || !isDigit(t[i])) return 0;
  while (i < t.size() && isDigit(t[i])) ++i;
  if (i < t.size() && t[i] == '.') {
    is_float = true;
    ++i;
    while (i < t.size() && isDigit(t[i])) ++i;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    if (j < t.size() && isDigit(t[j])) {
      is_float = true;
      i = j;
      while (i < t.size() && isDigit(t[i])) ++i;
    }
  }
  return i - pos;
}

enum class LitStatus { Ok, OutOfRange, Bad };

// Converts a scanned number (without sign) to a constant, applying `neg`.
LitStatus convertNumber(std::string_view num, bool is_float, bool neg, ConstValue& out) {
  if (is_float) {
    double d = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), d);
    if (p != num.data() + num.size()) return LitStatus::Bad;
    if (ec == std::errc::result_out_of_range) {
      // Overflow to infinity or underflow to zero: take strtod's answer.
      std::string s(num);
      d = std::strtod(s.c_str(), nullptr);
    } else if (ec != std::errc()) {
      return LitStatus::Bad;
    }
    out.kind = ConstValue::Kind::Float;
    out.f = neg ? -d : d;
    return LitStatus::Ok;
  }
  uint64_t mag = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), mag);
  if (ec == std::errc::result_out_of_range) return LitStatus::OutOfRange;
  if (ec != std::errc() || p != num.data() + num.size()) return LitStatus::Bad;
  constexpr uint64_t kMaxPos = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  out.kind = ConstValue::Kind::Int;
  if (neg) {
    if (mag > kMaxPos + 1) return LitStatus::OutOfRange;
    out.i = mag == kMaxPos + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
  } else {
    if (mag > kMaxPos) return LitStatus::OutOfRange;
    out.i = static_cast<int64_t>(mag);
  }
  return LitStatus::Ok;
}

class Parser {
 public:
  Parser(std::string_view text, Fusion& f, ScalarNameResolver& names, const ScalarParseOptions& opts)
      : t_(text), f_(f), names_(names), opts_(opts) {}

  ScalarParseResult run() {
    ScalarParseResult r;
    skipWs();
    if (pos_ >= t_.size()) {
      fail("empty scalar expression");
    } else {
      size_t start = pos_;
      ScalarId id = parseSum();
      if (ok() && (skipWs(), pos_ < t_.size())) fail("unexpected '" + std::string(1, t_[pos_]) + "'");
      if (ok() && opts_.fresh_root && root_is_name_) {
        failAt(start, "a named scalar's value must be a constant or an expression, not another name");
      }
      if (ok()) r.id = id;
    }
    if (!ok()) {
      r.id = kNone;
      r.error = error_;
      r.error_pos = error_pos_;
      r.out_of_range = out_of_range_;
    }
    return r;
  }

 private:
  bool ok() const { return error_.empty(); }
  void fail(std::string msg) {
    if (!ok()) return;
    error_ = std::move(msg);
    error_pos_ = pos_;
  }
  // fail() with the error at `at`, where the parse also stands after it; kNone, for returning.
  ScalarId failAt(size_t at, std::string msg) {
    pos_ = at;
    fail(std::move(msg));
    return kNone;
  }
  void skipWs() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r'))
      ++pos_;
  }
  bool accept(char c) {
    skipWs();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) {
      if (pos_ >= t_.size())
        fail(std::string("expected '") + c + "' before the end of the expression");
      else
        fail(std::string("expected '") + c + "', found '" + t_[pos_] + "'");
    }
  }

  ScalarId addConst(const ConstValue& v) {
    if (v.kind == ConstValue::Kind::Float) return f_.addConstFloat(v.f, opts_.float_dtype);
    if (v.kind == ConstValue::Kind::Bool) return f_.addConstBool(v.i != 0);
    return f_.addConstInt(v.i, opts_.int_dtype);
  }

  DType dtypeOf(ScalarId s) const {
    if (s < f_.scalars.size()) return f_.scalars[s].dtype;
    return names_.dtypeOf(s).value_or(opts_.int_dtype);
  }
  ScalarId addBinary(ScalarOp op, ScalarId a, ScalarId b) {
    DType d = derivedScalarDType(dtypeOf(a), dtypeOf(b), opts_.int_dtype);
    root_is_name_ = false;
    return f_.addDerived(op, a, b, d);
  }

  // A left-associative chain `operand (op operand)*`: opOf(c) is the op of the operator
  // character c, None for a character that ends the chain.
  template <class OpOf>
  ScalarId parseChain(ScalarId (Parser::*operand)(), OpOf opOf) {
    ScalarId lhs = (this->*operand)();
    while (ok()) {
      skipWs();
      ScalarOp op = pos_ < t_.size() ? opOf(t_[pos_]) : ScalarOp::None;
      if (op == ScalarOp::None) break;
      ++pos_;
      ScalarId rhs = (this->*operand)();
      if (!ok()) break;
      lhs = addBinary(op, lhs, rhs);
    }
    return lhs;
  }

  ScalarId parseSum() {
    return parseChain(&Parser::parseProduct, [](char c) {
      return c == '+' ? ScalarOp::Add : c == '-' ? ScalarOp::Sub : ScalarOp::None;
    });
  }

  ScalarId parseProduct() {
    return parseChain(&Parser::parseUnary, [](char c) {
      return c == '*' ? ScalarOp::Mul : c == '/' ? ScalarOp::Div : c == '%' ? ScalarOp::Mod : ScalarOp::None;
    });
  }

  // Every nesting (parentheses, calls, unary minus) passes through here.
  ScalarId parseUnary() {
    if (++depth_ > kMaxScalarExprDepth) {
      fail("the expression nests deeper than " + std::to_string(kMaxScalarExprDepth) + " levels");
      return kNone;
    }
    ScalarId r = kNone;
    skipWs();
    if (pos_ < t_.size() && t_[pos_] == '-') {
      ++pos_;
      skipWs();
      bool is_float = false;
      size_t n = scanNumber(t_, pos_, is_float);
      if (n > 0) {
        r = parseNumber(n, is_float, /*neg=*/true);
      } else {
        ScalarId x = parseUnary();
        if (ok()) r = negate(x);
      }
    } else {
      r = parsePrimary();
    }
    --depth_;
    return r;
  }

  ScalarId negate(ScalarId x) {
    // Fold the sign into a literal this parse just created.
    if (x >= first_new_ && x < f_.scalars.size() && f_.scalars[x].kind == ScalarKind::Constant &&
        f_.scalars[x].name == kNoName) {
      ConstValue& v = f_.scalars[x].value;
      if (v.kind == ConstValue::Kind::Float) {
        v.f = -v.f;
        v.im = -v.im;  // a complex constant negates both parts
        return x;
      }
      if (v.kind == ConstValue::Kind::Int) {
        if (v.i == std::numeric_limits<int64_t>::min()) {
          out_of_range_ = true;
          fail("the negated constant does not fit in a 64-bit signed integer");
          return kNone;
        }
        v.i = -v.i;
        return x;
      }
    }
    root_is_name_ = false;
    return f_.addDerived(ScalarOp::Neg, x, kNone, dtypeOf(x));
  }

  ScalarId parseNumber(size_t n, bool is_float, bool neg) {
    ConstValue v;
    size_t start = pos_;
    LitStatus st = convertNumber(t_.substr(pos_, n), is_float, neg, v);
    if (st == LitStatus::OutOfRange) {
      out_of_range_ = true;
      fail("integer constant " + std::string(neg ? "-" : "") + jsonscan::clipForMessage(t_.substr(start, n)) +
           " does not fit in a 64-bit signed integer (write large values as strings up to 2^63-1)");
      return kNone;
    }
    if (st == LitStatus::Bad) {
      fail("malformed number");
      return kNone;
    }
    pos_ += n;
    root_is_name_ = false;
    return addConst(v);
  }

  // DTYPE '(' literal ')' at the '(': a constant of that dtype (a dtype of the format's spelling),
  // where the position's default dtype of its literal would be another.
  ScalarId parseTypedConstant(size_t start, std::string_view word, DType dt) {
    ++pos_;
    size_t close = t_.find(')', pos_);
    if (close == std::string_view::npos) return failAt(pos_, "expected ')' before the end of the expression");
    std::string_view lit = trimmed(t_.substr(pos_, close - pos_));
    if (isComplex(dt)) return parseComplexConstant(start, word, dt, lit, close);
    bool oor = false;
    std::optional<ConstValue> v = parseScalarLiteral(lit, &oor);
    if (!v) {
      out_of_range_ = oor;
      return failAt(pos_, std::string(word) + "(...) expects a constant, such as " + std::string(word) +
                              (isFloatingPoint(dt) ? "(0.5)"
                               : dt == DType::Bool ? "(true)"
                                                   : "(2)"));
    }
    const bool is_bool = v->kind == ConstValue::Kind::Bool, is_float = v->kind == ConstValue::Kind::Float;
    const std::string what = std::string(word) + "(...)";
    ScalarId id = kNone;
    if (dt == DType::Bool) {
      if (!is_bool) return failAt(start, what + " takes true or false, not " + std::string(lit));
      id = f_.addConstBool(v->i != 0);
    } else if (isIntegral(dt)) {
      if (is_bool || is_float) return failAt(start, what + " takes an integer, not " + std::string(lit));
      if (dt == DType::Int32 &&
          (v->i < std::numeric_limits<int32_t>::min() || v->i > std::numeric_limits<int32_t>::max()))
        return failAt(start, std::string(lit) + " does not fit Int32");
      id = f_.addConstInt(v->i, dt);
    } else {  // the floating dtypes, FP4 among them
      if (is_bool) return failAt(start, what + " takes a number, not " + std::string(lit));
      id = f_.addConstFloat(is_float ? v->f : static_cast<double>(v->i), dt);
    }
    root_is_name_ = false;
    pos_ = close + 1;
    return id;
  }

  static std::string_view trimmed(std::string_view lit) {
    while (!lit.empty() && (lit.front() == ' ' || lit.front() == '\t')) lit.remove_prefix(1);
    while (!lit.empty() && (lit.back() == ' ' || lit.back() == '\t')) lit.remove_suffix(1);
    return lit;
  }

  // ComplexFloat(RE, IM) / ComplexDouble(RE, IM): two numbers, the real and the imaginary part.
  ScalarId parseComplexConstant(size_t start, std::string_view word, DType dt, std::string_view lits,
                                size_t close) {
    const std::string what = std::string(word) + "(...)";
    const size_t comma = lits.find(',');
    if (comma == std::string_view::npos)
      return failAt(start, what + " takes the real and the imaginary part, such as " + std::string(word) +
                               "(1.0, -0.5), not " + std::string(lits));
    double parts[2] = {0, 0};
    const std::string_view texts[2] = {trimmed(lits.substr(0, comma)), trimmed(lits.substr(comma + 1))};
    for (int k = 0; k < 2; ++k) {
      std::optional<ConstValue> v = parseScalarLiteral(texts[k]);
      if (!v || v->kind == ConstValue::Kind::Bool)
        return failAt(start, what + " takes two numbers, not " + std::string(texts[k]));
      parts[k] = v->kind == ConstValue::Kind::Float ? v->f : static_cast<double>(v->i);
    }
    root_is_name_ = false;
    pos_ = close + 1;
    return f_.addConstComplex(parts[0], parts[1], dt);
  }

  ScalarId parsePrimary() {
    skipWs();
    if (pos_ >= t_.size()) {
      fail("expected a value before the end of the expression");
      return kNone;
    }
    char c = t_[pos_];
    if (c == '(') {
      ++pos_;
      ScalarId x = parseSum();
      if (ok()) expect(')');
      return ok() ? x : kNone;
    }
    bool is_float = false;
    if (size_t n = scanNumber(t_, pos_, is_float); n > 0) {
      // A number glued to letters ("2x") is malformed.
      if (pos_ + n < t_.size() && isIdentChar(t_[pos_ + n])) {
        pos_ += n;
        fail("malformed number");
        return kNone;
      }
      return parseNumber(n, is_float, false);
    }
    if (!isIdentStart(c)) {
      fail(std::string("unexpected '") + c + "'");
      return kNone;
    }
    size_t start = pos_;
    while (pos_ < t_.size() && isIdentChar(t_[pos_])) ++pos_;
    std::string_view word = t_.substr(start, pos_ - start);
    ConstValue v;
    if (word == "inf" || word == "nan") {
      v.kind = ConstValue::Kind::Float;
      v.f =
          word == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      root_is_name_ = false;
      return addConst(v);
    }
    if (word == "true" || word == "false") {
      v.kind = ConstValue::Kind::Bool;
      v.i = word == "true";
      root_is_name_ = false;
      return addConst(v);
    }
    if (std::optional<DType> dt = parseDType(word); dt && (skipWs(), pos_ < t_.size() && t_[pos_] == '(')) {
      return parseTypedConstant(start, word, *dt);
    }
    if (word == "ceilDiv" || word == "max" || word == "min") {
      ScalarOp op = word == "ceilDiv" ? ScalarOp::CeilDiv : word == "max" ? ScalarOp::Max : ScalarOp::Min;
      expect('(');
      if (!ok()) return kNone;
      ScalarId a = parseSum();
      if (ok()) expect(',');
      ScalarId b = ok() ? parseSum() : kNone;
      if (ok()) expect(')');
      if (!ok()) return kNone;
      return addBinary(op, a, b);
    }
    if (word == "size") {
      expect('(');
      skipWs();
      size_t ns = pos_;
      while (pos_ < t_.size() && isIdentChar(t_[pos_])) ++pos_;
      std::string_view tname = t_.substr(ns, pos_ - ns);
      if (!ok()) return kNone;
      if (!isScalarName(tname)) {
        return failAt(ns, "size() expects a tensor name as its first argument");
      }
      std::optional<TensorId> t = names_.tensor(tname);
      if (!t) {
        return failAt(ns, "size() names no tensor '" + std::string(tname) + "'");
      }
      expect(',');
      skipWs();
      size_t ds = pos_;
      bool f = false;
      size_t n = ok() ? scanNumber(t_, pos_, f) : 0;
      if (!ok()) return kNone;
      int32_t dim = 0;
      auto [p, ec] = std::from_chars(t_.data() + pos_, t_.data() + pos_ + n, dim);
      if (n == 0 || f || ec != std::errc() || p != t_.data() + pos_ + n) {
        return failAt(ds, "size() expects a non-negative axis index as its second argument");
      }
      pos_ += n;
      expect(')');
      if (!ok()) return kNone;
      root_is_name_ = false;
      return f_.addSize(*t, dim);
    }
    if (isReserved(word)) {
      return failAt(start, "'" + std::string(word) + "' is a reserved word");
    }
    std::optional<ScalarId> s = names_.scalar(word);
    if (!s) {
      return failAt(start, "unknown scalar '" + std::string(word) + "'");
    }
    return *s;
  }

  std::string_view t_;
  Fusion& f_;
  ScalarNameResolver& names_;
  const ScalarParseOptions& opts_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
  bool out_of_range_ = false;
  bool root_is_name_ = true;  // stays true only if the whole text is one name
  ScalarId first_new_ = static_cast<ScalarId>(f_.scalars.size());
};

// ---------------------------------------------------------------- printer

enum Level { kSum = 1, kProduct = 2, kUnary = 3, kPrimary = 4 };

class Printer {
 public:
  Printer(const Fusion& f, DType int_dtype) : f_(f), int_dtype_(int_dtype) {}

  void print(ScalarId s, int min_level, std::string& out, int depth) {
    FC_CHECK(depth < 100000, "scalar expression too deep to print");
    FC_CHECK(s < f_.scalars.size(), "scalar id out of range: " + std::to_string(s));
    const Scalar& x = f_.scalars[s];
    if (x.name != kNoName && depth > 0) {
      out += f_.names.str(x.name);
      return;
    }
    if (x.kind == ScalarKind::Constant) {
      std::string lit = printConstValue(x.value);
      // Inside an expression an integer literal is Int or Index alike: its partner decides the
      // dtype (Index absorbs Int), so only the other dtypes are written there.
      const bool integer_inside = depth > 0 && x.value.kind == ConstValue::Kind::Int &&
                                  (x.dtype == DType::Int || x.dtype == DType::Index);
      if (!isLiteralDType(x, int_dtype_) && !integer_inside) {
        out += dtypeName(x.dtype);
        out += '(';
        out += lit;
        if (isComplex(x.dtype)) {
          ConstValue im = x.value;
          im.f = x.value.im;
          out += ", ";
          out += printConstValue(im);
        }
        out += ')';
        return;
      }
      bool neg = !lit.empty() && lit[0] == '-';
      if (neg && min_level > kUnary) {
        out += '(';
        out += lit;
        out += ')';
      } else {
        out += lit;
      }
      return;
    }
    if (x.kind != ScalarKind::Derived) {  // a named symbol / input printed at depth 0
      out += f_.names.str(x.name);
      return;
    }
    int level = kPrimary;
    switch (x.op) {
      case ScalarOp::Add:
      case ScalarOp::Sub: level = kSum; break;
      case ScalarOp::Mul:
      case ScalarOp::Div:
      case ScalarOp::Mod: level = kProduct; break;
      case ScalarOp::Neg: level = kUnary; break;
      default: level = kPrimary; break;
    }
    bool paren = level < min_level;
    if (paren) out += '(';
    switch (x.op) {
      case ScalarOp::Add:
      case ScalarOp::Sub:
        print(x.lhs, kSum, out, depth + 1);
        out += x.op == ScalarOp::Add ? " + " : " - ";
        print(x.rhs, kProduct, out, depth + 1);
        break;
      case ScalarOp::Mul:
      case ScalarOp::Div:
      case ScalarOp::Mod:
        print(x.lhs, kProduct, out, depth + 1);
        out += x.op == ScalarOp::Mul ? " * " : x.op == ScalarOp::Div ? " / " : " % ";
        print(x.rhs, kUnary, out, depth + 1);
        break;
      case ScalarOp::Neg:
        out += '-';
        print(x.lhs, kUnary, out, depth + 1);
        break;
      case ScalarOp::CeilDiv:
      case ScalarOp::Max:
      case ScalarOp::Min:
        out += scalarOpName(x.op);
        out += '(';
        print(x.lhs, kSum, out, depth + 1);
        out += ", ";
        print(x.rhs, kSum, out, depth + 1);
        out += ')';
        break;
      case ScalarOp::Size:
        FC_CHECK(x.size_of < f_.tensors.size(), "size() of an unknown tensor");
        out += "size(";
        out += f_.tensorName(x.size_of);
        out += ", ";
        out += std::to_string(x.size_dim);
        out += ')';
        break;
      case ScalarOp::None: FC_CHECK(false, "derived scalar without an op"); break;
    }
    if (paren) out += ')';
  }

 private:
  const Fusion& f_;
  DType int_dtype_;
};

}  // namespace

bool isScalarName(std::string_view s) {
  if (s.empty() || !isIdentStart(s[0])) return false;
  for (char c : s)
    if (!isIdentChar(c)) return false;
  return !isReserved(s);
}

ScalarParseResult parseScalarExpr(std::string_view text, Fusion& f, ScalarNameResolver& names,
                                  const ScalarParseOptions& opts) {
  Parser p(text, f, names, opts);
  return p.run();
}

std::optional<ConstValue> parseScalarLiteral(std::string_view t, bool* out_of_range) {
  if (out_of_range) *out_of_range = false;
  ConstValue v;
  if (t == "true" || t == "false") {
    v.kind = ConstValue::Kind::Bool;
    v.i = t == "true";
    return v;
  }
  bool neg = false;
  size_t pos = 0;
  if (!t.empty() && t[0] == '-') {
    neg = true;
    pos = 1;
  }
  std::string_view rest = t.substr(pos);
  if (rest == "inf" || rest == "nan") {
    v.kind = ConstValue::Kind::Float;
    v.f = rest == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    if (neg) v.f = -v.f;
    return v;
  }
  bool is_float = false;
  size_t n = scanNumber(t, pos, is_float);
  if (n == 0 || pos + n != t.size()) return std::nullopt;
  LitStatus st = convertNumber(t.substr(pos, n), is_float, neg, v);
  if (st == LitStatus::OutOfRange && out_of_range) *out_of_range = true;
  if (st != LitStatus::Ok) return std::nullopt;
  return v;
}

std::string printConstValue(const ConstValue& v) {
  switch (v.kind) {
    case ConstValue::Kind::Bool: return v.i ? "true" : "false";
    case ConstValue::Kind::Int: return std::to_string(v.i);
    case ConstValue::Kind::Float: {
      if (std::isnan(v.f)) return "nan";
      if (std::isinf(v.f)) return v.f < 0 ? "-inf" : "inf";
      char buf[64];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v.f);
      FC_CHECK(ec == std::errc(), "to_chars failed for a double");
      std::string s(buf, p);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
  }
  return "?";
}

std::string printScalarExpr(const Fusion& f, ScalarId s, DType int_dtype) {
  std::string out;
  FC_CHECK(s < f.scalars.size(), "scalar id out of range");
  if (f.scalars[s].name != kNoName) return std::string(f.names.str(f.scalars[s].name));
  Printer(f, int_dtype).print(s, kSum, out, 0);
  return out;
}

bool isLiteralDType(const Scalar& x, DType int_dtype) {
  switch (x.value.kind) {
    case ConstValue::Kind::Bool: return x.dtype == DType::Bool;
    case ConstValue::Kind::Int:
      return x.dtype == int_dtype || (int_dtype == DType::Index && x.dtype == DType::Int);
    case ConstValue::Kind::Float: return x.dtype == DType::Double;
  }
  return true;
}

bool needsTypedConstant(const Fusion& f, ScalarId s, DType int_dtype) {
  FC_CHECK(s < f.scalars.size(), "scalar id out of range");
  const Scalar& x = f.scalars[s];
  return x.kind == ScalarKind::Constant && x.name == kNoName && !isLiteralDType(x, int_dtype);
}

std::string printScalarDefinition(const Fusion& f, ScalarId s) {
  std::string out;
  Printer(f, DType::Index).print(s, kSum, out, 0);
  return out;
}

}  // namespace fc
