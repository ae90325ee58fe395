// Expressions of a C++ test (see reader.h): literals, initializer lists, names (variables, enum
// constants such as `ParallelType::DIDx` and `DataType::Half`, the fixture's `num_devices_` and
// `communicator_`), `std::move`, casts, lambdas (opaque), integer and scalar arithmetic,
// comparisons, `?:`, assignment (`x = ...`, `params.use_fusion_executor_cache = true`), calls,
// members and indexing.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "io/cpp/reader.h"

namespace fc::cpp_text {
namespace {

constexpr int kMaxDepth = 64;

// `DataType::Half` / `at::kHalf` (and ATen's aliases such as `at::kFloat16`): the dtype.
std::optional<DType> enumDType(std::string_view s) {
  if (auto t = parseDType(s)) return t;
  static constexpr lex::Spelling<DType> kAtenAliases[] = {{"kFloat32", DType::Float},
                                                          {"kFloat64", DType::Double},
                                                          {"kFloat16", DType::Half},
                                                          {"kInt64", DType::Int},
                                                          {"kInt32", DType::Int32}};
  return lex::dtypeSpelled(s, dtypeAtenName, kAtenAliases);
}

bool isTemplateFunction(std::string_view s) {
  return s == "create" || s == "make_unique" || s == "make_shared" || s == "static_cast" ||
         s == "dynamic_cast" || s == "reinterpret_cast" || s == "const_cast" || s == "vector" ||
         s == "array" || s == "optional" || s == "as" || s == "get" || s == "pair" || s == "tuple" ||
         s == "unique_ptr" || s == "initializer_list" || s == "complex";
}

}  // namespace

std::optional<Value> Reader::expr(int depth) {
  if (depth > kMaxDepth) {
    error(DiagCode::ImportSyntax, "expression nested too deeply", p_);
    return std::nullopt;
  }
  return assignment(depth);
}

std::optional<Value> Reader::assignment(int depth) {
  // `name = e`, `name op= e`, `name.field = e`, `name->field = e`, `name.sub.field = e` (the
  // field's path joined by dots: `params.executor.use_fusion_executor_cache`).
  size_t at = p_;
  // `std::tie(a, b) = e`: each name takes its element of e (std::ignore none).
  if (isIdent(p_, "std") && isPunct(p_ + 1, "::") && isIdent(p_ + 2, "tie") && isPunct(p_ + 3, "(")) {
    size_t close = matching(p_ + 3);
    if (close < end_ && isPunct(close + 1, "=")) {
      std::vector<std::string> names;
      for (size_t q = p_ + 4; q < close; ++q) {
        if (isPunct(q, ",")) continue;
        if (isIdent(q, "std") && isPunct(q + 1, "::") && isIdent(q + 2, "ignore")) {
          names.emplace_back();
          q += 2;
        } else if (isIdent(q) && (isPunct(q + 1, ",") || q + 1 == close)) {
          names.emplace_back(str(q));
        } else {
          error(DiagCode::ImportUnsupported, "std::tie of anything but names is not read", q);
          return std::nullopt;
        }
      }
      p_ = close + 2;
      auto v = expr(depth + 1);
      if (!v) return std::nullopt;
      bindElements(names, *v, at);
      return *v;
    }
  }
  if (isIdent(p_)) {
    size_t q = p_ + 1;
    std::string field;
    while ((isPunct(q, ".") || isPunct(q, "->")) && isIdent(q + 1) && field.size() < 256) {
      field += (field.empty() ? "" : ".") + std::string(str(q + 1));
      q += 2;
    }
    // `name[i] = e`: a list element takes e where i is known; anything else is not about the fusion.
    if (field.empty() && isPunct(q, "[")) {
      const size_t close = matching(q);
      if (close < end_ && isPunct(close + 1, "=")) {
        std::string name(str(p_));
        p_ = q + 1;
        auto i = expr(depth + 1);
        if (!i || !expect("]") || !expect("=")) return std::nullopt;
        auto v = expr(depth + 1);
        if (!v) return std::nullopt;
        auto it = vars_.find(name);
        if (it != vars_.end() && it->second.k == Value::K::List && i->k == Value::K::Int && i->i >= 0 &&
            static_cast<size_t>(i->i) < it->second.items.size()) {
          it->second.items[static_cast<size_t>(i->i)] = *v;
          return *v;
        }
        return Value::opaque(name + "[...] = ...", at);
      }
    }
    static const char* ops[] = {"=", "+=", "-=", "*=", "/=", "%="};
    for (const char* o : ops) {
      if (!isPunct(q, o)) continue;
      std::string name(str(p_));
      p_ = q + 1;
      auto v = expr(depth + 1);
      if (!v) return std::nullopt;
      auto it = vars_.find(name);
      if (!field.empty()) {
        if (it != vars_.end() && it->second.k == Value::K::Params) {
          for (auto& [n, x] : it->second.fields)
            if (n == field) {
              x = *v;
              return Value();
            }
          it->second.fields.push_back(Field{field, *v});
        }
        return Value();
      }
      if (std::string_view(o) != "=") {
        if (it == vars_.end()) return Value::opaque(name, at);
        auto r = arith(std::string_view(o).substr(0, 1), it->second, *v, at);
        if (!r) return std::nullopt;
        it->second = *r;
        return *r;
      }
      vars_[name] = *v;
      return *v;
    }
  }
  return ternary(depth);
}

// `c ? a : b` evaluates only the arm the condition picks, as C++ does: an arm that builds a tensor
// (`concrete ? makeContigConcreteTensor(s) : makeContigTensor(n)`) must not build it when not
// taken. On a condition not known here neither arm is evaluated, and the value is opaque.
std::optional<Value> Reader::ternary(int depth) {
  auto c = binary(depth, 0);
  if (!c || !isPunct(p_, "?")) return c;
  size_t at = p_++;
  const bool known = c->k == Value::K::Bool || c->k == Value::K::Int;
  std::optional<Value> a;
  if (known && c->i) {
    a = expr(depth + 1);
    if (!a) return std::nullopt;
  } else {
    skipArm();
  }
  if (!expect(":")) return std::nullopt;
  if (known && !c->i) return expr(depth + 1);
  skipArm();
  if (known) return a;
  return Value::opaque("a `?:` on a condition not known here", at);
}

void Reader::skipArm() {
  int nested = 0;  // `?` of ternaries inside the arm whose `:` is still to come
  while (p_ < end_) {
    if (isPunct(p_, "(") || isPunct(p_, "{") || isPunct(p_, "[")) {
      p_ = std::min(matching(p_) + 1, end_);
      continue;
    }
    if (isPunct(p_, ")") || isPunct(p_, "}") || isPunct(p_, "]") || isPunct(p_, ";") || isPunct(p_, ","))
      return;
    if (isPunct(p_, "?")) {
      ++nested;
    } else if (isPunct(p_, ":")) {
      if (nested == 0) return;
      --nested;
    }
    ++p_;
  }
}

std::optional<Value> Reader::binary(int depth, int level) {
  static const std::vector<std::vector<std::string_view>> levels = {
      {"||"}, {"&&"},     {"|"},          {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
      {"<<"}, {"+", "-"}, {"*", "/", "%"}};
  if (level == static_cast<int>(levels.size())) return unary(depth);
  auto a = binary(depth, level + 1);
  for (int guard = 0; a && guard < 4096; ++guard) {
    std::string_view op;
    for (std::string_view o : levels[static_cast<size_t>(level)])
      if (isPunct(p_, o)) op = o;
    if (op.empty()) break;
    size_t at = p_++;
    auto b = binary(depth, level + 1);
    if (!b) return std::nullopt;
    a = arith(op, *a, *b, at);
  }
  return a;
}

std::optional<Value> Reader::arith(std::string_view op, const Value& a, const Value& b, size_t at) {
  using K = Value::K;
  if (op == "<<") return Value::opaque("a stream output", at);
  auto num = [](const Value& v) { return v.k == K::Int || v.k == K::Bool || v.k == K::Float; };
  if (num(a) && num(b)) {
    bool fl = a.k == K::Float || b.k == K::Float;
    double x = a.k == K::Float ? a.f : static_cast<double>(a.i),
           y = b.k == K::Float ? b.f : static_cast<double>(b.i);
    Value r;
    auto boolean = [&](bool v) {
      Value z;
      z.k = K::Bool;
      z.i = v;
      return z;
    };
    if (op == "==") return boolean(x == y);
    if (op == "!=") return boolean(x != y);
    if (op == "<") return boolean(x < y);
    if (op == ">") return boolean(x > y);
    if (op == "<=") return boolean(x <= y);
    if (op == ">=") return boolean(x >= y);
    if (op == "&&") return boolean(x != 0 && y != 0);
    if (op == "||") return boolean(x != 0 || y != 0);
    if (fl) {
      r.k = K::Float;
      if (op == "+") r.f = x + y;
      if (op == "-") r.f = x - y;
      if (op == "*") r.f = x * y;
      if (op == "/") r.f = x / y;
      return r;
    }
    if ((op == "/" || op == "%") && b.i == 0)
      return error(DiagCode::ImportSyntax, "division by zero", at), std::nullopt;
    int64_t ai = a.i, bi = b.i;
    int64_t v = 0;
    bool overflow = false;
    if (op == "+") overflow = __builtin_add_overflow(ai, bi, &v);
    if (op == "-") overflow = __builtin_sub_overflow(ai, bi, &v);
    if (op == "*") overflow = __builtin_mul_overflow(ai, bi, &v);
    if (op == "/") v = (ai == INT64_MIN && bi == -1) ? (overflow = true, 0) : ai / bi;
    if (op == "%") v = (ai == INT64_MIN && bi == -1) ? 0 : ai % bi;
    if (op == "|") v = ai | bi;
    if (op == "&") v = ai & bi;
    if (overflow) return error(DiagCode::ImportSyntax, "integer overflow", at), std::nullopt;
    return Value::integer(v);
  }
  // Scalars of the fusion (Val*): derived scalars.
  bool scalarish =
      (a.k == K::Scalar || num(a)) && (b.k == K::Scalar || num(b)) && (a.k == K::Scalar || b.k == K::Scalar);
  if (scalarish) {
    ScalarOp so = op == "+"   ? ScalarOp::Add
                  : op == "-" ? ScalarOp::Sub
                  : op == "*" ? ScalarOp::Mul
                  : op == "/" ? ScalarOp::Div
                  : op == "%" ? ScalarOp::Mod
                              : ScalarOp::None;
    if (so != ScalarOp::None) {
      ScalarId x = kNone, y = kNone;
      if (!toScalar(a, x, at, "an operand") || !toScalar(b, y, at, "an operand")) return std::nullopt;
      Value r;
      r.k = K::Scalar;
      r.scalar = b_.derived(so, x, y);
      return r;
    }
  }
  const Value& o = a.k == K::Opaque ? a : b;
  return Value::opaque(o.k == K::Opaque ? o.s : "an expression on values the import does not follow", at);
}

std::optional<Value> Reader::unary(int depth) {
  size_t at = p_;
  if (isPunct(p_, "-") || isPunct(p_, "!") || isPunct(p_, "+") || isPunct(p_, "~")) {
    std::string op(str(p_++));
    auto v = unary(depth + 1);
    if (!v) return std::nullopt;
    if (op == "+") return v;
    if (op == "-") {
      if (v->k == Value::K::Int) return Value::integer(v->i == INT64_MIN ? v->i : -v->i);
      if (v->k == Value::K::Float) {
        v->f = -v->f;
        return v;
      }
      if (v->k == Value::K::Scalar) {
        Value r;
        r.k = Value::K::Scalar;
        r.scalar = b_.derived(ScalarOp::Neg, v->scalar);
        return r;
      }
      return Value::opaque("a negation", at);
    }
    if (op == "!" && (v->k == Value::K::Bool || v->k == Value::K::Int)) {
      Value r;
      r.k = Value::K::Bool;
      r.i = v->i == 0;
      return r;
    }
    return Value::opaque("an expression on values the import does not follow", at);
  }
  if (isPunct(p_, "&") || isPunct(p_, "*")) {  // address-of and dereference keep the value
    ++p_;
    return unary(depth + 1);
  }
  if (isPunct(p_, "++") || isPunct(p_, "--")) {
    std::string op(str(p_++));
    if (isIdent(p_)) {
      auto it = vars_.find(std::string(str(p_)));
      if (it != vars_.end() && it->second.k == Value::K::Int) it->second.i += op == "++" ? 1 : -1;
    }
    return unary(depth + 1);
  }
  return postfix(depth);
}

bool Reader::callArgs(std::vector<Value>& out, int depth) {
  if (!expect("(")) return false;
  if (eat(")")) return true;
  while (true) {
    auto v = expr(depth + 1);
    if (!v) return false;
    out.push_back(std::move(*v));
    if (eat(",")) continue;
    return expect(")");
  }
}

std::optional<Value> Reader::postfix(int depth) {
  size_t start = p_;
  std::string target = isIdent(p_) ? std::string(str(p_)) : std::string();
  auto v = primary(depth);
  for (int guard = 0; v && guard < 256; ++guard) {
    size_t at = p_;
    if ((isPunct(p_, ".") || isPunct(p_, "->")) && isIdent(p_ + 1)) {
      std::string name(str(p_ + 1));
      p_ += 2;
      // `name<...>(`: a member template's arguments (`isA<KernelExecutor>()`, `as<at::Tensor>()`).
      if (isPunct(p_, "<")) {
        const size_t close = matching(p_);
        if (close < end_ && (isTemplateFunction(name) || isPunct(close + 1, "("))) p_ = close + 1;
      }
      if (isPunct(p_, "(")) {
        std::vector<Value> args;
        if (!callArgs(args, depth)) return std::nullopt;
        v = method(*v, name, args, at, target);
      } else {
        v = member(*v, name, at);
      }
      target.clear();
      continue;
    }
    if (isPunct(p_, "[")) {
      ++p_;
      auto k = expr(depth + 1);
      if (!k || !expect("]")) return std::nullopt;
      if (v->k == Value::K::List && k->k == Value::K::Int && k->i >= 0 &&
          static_cast<size_t>(k->i) < v->items.size()) {
        Value item = v->items[static_cast<size_t>(k->i)];
        v = item;
      } else {
        v = Value::opaque(snippet(start, p_), at);
      }
      target.clear();
      continue;
    }
    if (isPunct(p_, "(")) {  // calling a value: a lambda, a functor
      std::vector<Value> args;
      if (!callArgs(args, depth)) return std::nullopt;
      v = Value::opaque(snippet(start, p_), at);
      continue;
    }
    if (isPunct(p_, "++") || isPunct(p_, "--")) {
      auto it = vars_.find(target);
      if (it != vars_.end() && it->second.k == Value::K::Int) it->second.i += isPunct(p_, "++") ? 1 : -1;
      ++p_;
      continue;
    }
    break;
  }
  return v;
}

std::optional<Value> Reader::primary(int depth) {
  size_t at = p_;
  if (p_ >= end_) {
    error(DiagCode::ImportSyntax, "expected an expression" + found(), p_);
    return std::nullopt;
  }
  const Token& t = tok(p_);
  if (t.kind == Tok::Number) {
    std::string lit(str(p_++));
    lit.erase(std::remove(lit.begin(), lit.end(), '\''), lit.end());
    bool hex = lit.size() > 1 && lit[0] == '0' && (lit[1] == 'x' || lit[1] == 'X');
    while (!lit.empty() && std::strchr("uUlL", lit.back())) lit.pop_back();
    bool fl = !hex && (lit.find_first_of(".eE") != std::string::npos ||
                       (!lit.empty() && (lit.back() == 'f' || lit.back() == 'F')));
    if (fl && !lit.empty() && (lit.back() == 'f' || lit.back() == 'F')) lit.pop_back();
    errno = 0;
    if (fl) {
      Value v;
      v.k = Value::K::Float;
      v.f = std::strtod(lit.c_str(), nullptr);
      return v;
    }
    char* endp = nullptr;
    unsigned long long u = std::strtoull(lit.c_str(), &endp, 0);
    if (errno == ERANGE || u > static_cast<unsigned long long>(INT64_MAX) || (endp && *endp)) {
      error(DiagCode::ImportSyntax, "integer " + lit + " does not fit in 64 bits", at);
      return std::nullopt;
    }
    return Value::integer(static_cast<int64_t>(u));
  }
  if (t.kind == Tok::String) {
    Value v;
    v.k = Value::K::String;
    v.s = std::string(str(p_++));
    return v;
  }
  if (t.kind == Tok::Char) {
    ++p_;
    return Value::integer(0);
  }
  if (isPunct(p_, "{")) {
    ++p_;
    Value list;
    list.k = Value::K::List;
    list.tok = at;
    while (!eat("}")) {
      if (p_ >= end_) return expect("}"), std::nullopt;
      if (isPunct(p_, ".") && isIdent(p_ + 1) && isPunct(p_ + 2, "=")) p_ += 3;  // designated initializer
      auto v = expr(depth + 1);
      if (!v) return std::nullopt;
      list.items.push_back(std::move(*v));
      if (!eat(",") && !isPunct(p_, "}")) return expect("}"), std::nullopt;
    }
    return list;
  }
  if (isPunct(p_, "(")) {
    // A C-style cast `(int64_t)x` keeps the value; else a parenthesized expression.
    size_t te = typeEnd(p_ + 1);
    if (te > p_ + 1 && isPunct(te, ")") && !isPunct(te + 1, ";") && !isPunct(te + 1, ")") &&
        vars_.find(std::string(str(p_ + 1))) == vars_.end()) {
      p_ = te + 1;
      return unary(depth + 1);
    }
    ++p_;
    auto v = expr(depth + 1);
    if (!v || !expect(")")) return std::nullopt;
    return v;
  }
  if (isPunct(p_, "[")) {  // a lambda: skipped whole
    p_ = std::min(matching(p_) + 1, end_);
    if (isPunct(p_, "(")) p_ = std::min(matching(p_) + 1, end_);
    while (p_ < end_ && !isPunct(p_, "{") && !isPunct(p_, ";")) ++p_;
    if (isPunct(p_, "{")) p_ = std::min(matching(p_) + 1, end_);
    return Value::opaque("a lambda", at);
  }
  // `::testing::HasSubstr(...)`: a name qualified from the global namespace.
  if (isPunct(p_, "::") && isIdent(p_ + 1)) return ++p_, primary(depth);
  if (t.kind != Tok::Ident) {
    error(DiagCode::ImportSyntax, "expected an expression" + found(), p_);
    return std::nullopt;
  }
  // `new Float(1.0)`: a constant scalar as PyTorch's tree built one (before IrBuilder::create).
  if (str(p_) == "new" && isIdent(p_ + 1) && isPunct(p_ + 2, "(")) {
    const std::string cls(str(p_ + 1));
    const std::optional<DType> d = cls == "Float"    ? std::optional<DType>(DType::Float)
                                   : cls == "Double" ? std::optional<DType>(DType::Double)
                                   : cls == "Int"    ? std::optional<DType>(DType::Int)
                                   : cls == "Bool"   ? std::optional<DType>(DType::Bool)
                                                     : std::nullopt;
    if (d) {
      p_ += 3;
      auto v = expr(depth + 1);
      if (!v || !expect(")")) return std::nullopt;
      markPreRepo("`new " + cls + "(...)`", at);
      Value s;
      s.k = Value::K::Scalar;
      if (v->k == Value::K::Int && *d != DType::Bool && isIntegral(*d))
        s.scalar = b_.constInt(v->i, *d);
      else if ((v->k == Value::K::Int || v->k == Value::K::Float) && isFloatingPoint(*d))
        s.scalar = b_.constFloat(v->k == Value::K::Int ? static_cast<double>(v->i) : v->f, *d);
      else if ((v->k == Value::K::Int || v->k == Value::K::Bool) && *d == DType::Bool)
        s.scalar = b_.constBool(v->i != 0);
      else
        return error(DiagCode::ImportSyntax, "`new " + cls + "(...)` takes a number", at), std::nullopt;
      return s;
    }
  }
  // A qualified name, with template arguments where a template is called.
  std::string name(str(p_++));
  while (isPunct(p_, "::") && isIdent(p_ + 1)) {
    name += "::" + std::string(str(p_ + 1));
    p_ += 2;
  }
  std::string last = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  std::string targs;
  if (isPunct(p_, "<") && (isTemplateFunction(last) || templateArguments(p_))) {
    size_t close = matching(p_);
    if (close >= end_) {
      error(DiagCode::ImportSyntax, "unclosed template arguments", p_);
      return std::nullopt;
    }
    targs = snippet(p_ + 1, close);
    p_ = close + 1;
    while (isPunct(p_, "::") && isIdent(p_ + 1)) {
      name += "::" + std::string(str(p_ + 1));
      p_ += 2;
    }
  }
  if (!targs.empty()) name += "<" + targs + ">";
  return qualified(name, at, depth);
}

bool Reader::templateArguments(size_t open) const {
  const size_t close = matching(open);
  if (close >= end_ || !(isPunct(close + 1, "(") || isPunct(close + 1, "::"))) return false;
  for (size_t k = open + 1; k < close; ++k)
    if (!(isIdent(k) || tok(k).kind == Tok::Number || isPunct(k, "::") || isPunct(k, ",") ||
          isPunct(k, "<") || isPunct(k, ">") || isPunct(k, "*") || isPunct(k, "&")))
      return false;
  return true;
}

std::optional<Value> Reader::qualified(std::string name, size_t at, int depth) {
  if (name == "true" || name == "false") {
    Value v;
    v.k = Value::K::Bool;
    v.i = name == "true";
    return v;
  }
  if (name == "nullptr" || name == "NULL" || name == "std::nullopt" || name == "c10::nullopt") return Value();
  if (name == "this") return Value::opaque("this", at);
  // Enum constants.
  std::string leaf = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  if (name.rfind("DataType::", 0) == 0 || name.rfind("at::k", 0) == 0 || name.rfind("torch::k", 0) == 0 ||
      name.rfind("c10::k", 0) == 0 || name.rfind("at::ScalarType::", 0) == 0 ||
      name.rfind("PrimDataType::", 0) == 0) {
    if (auto d = enumDType(leaf)) {
      Value v;
      v.k = Value::K::DType;
      v.dtype = *d;
      return v;
    }
    if (!isPunct(p_, "(")) return Value::opaque(name, at);
  }
  if (name.rfind("ParallelType::", 0) == 0) {
    if (auto pt = parseParallelType(leaf)) {
      Value v;
      v.k = Value::K::Parallel;
      v.parallel = *pt;
      return v;
    }
    return Value::opaque(name, at);
  }
  if (isPunct(p_, "(")) {
    std::vector<Value> args;
    if (!callArgs(args, depth)) return std::nullopt;
    return call(name, args, at);
  }
  if (isPunct(p_, "{") && (name.rfind("std::", 0) == 0 || name == "Slice" || name == "DeviceMesh")) {
    auto list = primary(depth + 1);
    if (!list) return std::nullopt;
    std::vector<Value> args = list->items;
    if (name.rfind("std::vector", 0) == 0 || name.rfind("std::array", 0) == 0) return list;
    return call(name, args, at);
  }
  return lookup(name, at);
}

std::optional<Value> Reader::lookup(const std::string& name, size_t at) {
  auto it = vars_.find(name);
  if (it != vars_.end()) return it->second;
  if (name == "num_devices_" || name == "num_devices" || name == "kNumDevices")
    return Value::integer(numDevices(at));
  if (name == "communicator_" || name == "communicator") return Value::opaque("communicator_", at);
  if (name == "tensor_options_" || name == "tensor_options" || name == "options") {
    Value v;
    v.k = Value::K::Options;
    return v;
  }
  if (name == "fusion" || name == "fusion_ptr" || name == "fusion_") {
    // A snippet without its frame uses the fixture's fusion.
    Value v;
    v.k = Value::K::Fusion;
    return v;
  }
  if (name.find("::") != std::string::npos) return Value::opaque(name, at);
  return Value::opaque("`" + name + "`" + std::string(kUndefinedName), at);
}

bool Reader::undefinedName(const Value& v) {
  return v.k == Value::K::Opaque && std::string_view(v.s).ends_with(kUndefinedName);
}

}  // namespace fc::cpp_text
