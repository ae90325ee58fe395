// Statements of printed IR and the ops they print, read by form (see reader.h).
//
// A statement is one or more output tensors (`T5(Var),\nT6(Avg)` for ops with several outputs),
// `=` and a right-hand side: a call `name( args )`, an infix `a + b`, a prefix `-a` / `!a`, a
// C-style cast `(float)(a)`, or, in 2022-23 prints, a plain operand (a copy). The op comes from
// ops.def by the name nvFuser prints (OpInfo::ir_name, with nvFuser's `f` suffix on libm calls of
// Float and the `fmax` / `fmin` of 2024), and the arguments are laid out by the op's form. Names
// nvFuser prints that ops.def does not list: casts by their function name (`__half2float`, also
// without the `__` that Markdown eats), `view` (the print of reshape before 2025), `Set.Permute`,
// `tanh_gelu`, and `reduction( ..., op = add )`.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "io/ir/reader.h"
#include "ir/rng_like.h"

namespace fc::ir_text {
namespace {

std::optional<DType> castPart(std::string_view s) {
  static constexpr lex::Spelling<DType> kParts[] = {
      {"half", DType::Half},           {"float", DType::Float},       {"double", DType::Double},
      {"bfloat", DType::BFloat16},     {"int", DType::Int},           {"int32", DType::Int32},
      {"index", DType::Index},         {"bool", DType::Bool},         {"e4m3", DType::Float8_e4m3fn},
      {"e5m2", DType::Float8_e5m2},    {"uint", DType::Int},          {"uint32", DType::Int32},
      {"e8m0", DType::Float8_e8m0fnu}, {"e2m1", DType::Float4_e2m1fn}};
  return lex::spelled(kParts, s);
}

// `__half2float` / `half2float` / `__e4m32float` -> (from, to).
std::optional<std::pair<DType, DType>> castFunc(std::string_view n) {
  if (n.rfind("__", 0) == 0) n.remove_prefix(2);
  for (const char* src :
       {"half", "float", "double", "bfloat", "int", "bool", "e4m3", "e5m2", "e8m0", "e2m1"}) {
    std::string p = std::string(src) + "2";
    if (n.rfind(p, 0) != 0) continue;
    auto to = castPart(n.substr(p.size()));
    auto from = castPart(src);
    if (to && from) return std::make_pair(*from, *to);
  }
  return std::nullopt;
}

bool isSymbolName(std::string_view s) {
  return !s.empty() && !std::isalpha(static_cast<unsigned char>(s[0]));
}

OpKind kindAt(int k) { return static_cast<OpKind>(k); }

// A name nvFuser gives a scalar value (`i5`, `d33`, `b7`): letters, then digits.
bool scalarName(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::islower(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// The op a call `fn(...)` prints, by ops.def's printed names. A random factory whose parameters
// are 0 and 1 prints without them (rng_uniform, rng_normal_standard: csrc/ops/arith.cpp:208-227 @
// 81c4b22fd); it is the same op.
std::optional<OpKind> callOp(std::string_view fn) {
  if (fn == "rng_uniform") return OpKind::Uniform;
  if (fn == "rng_normal_standard") return OpKind::Normal;
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(kindAt(k));
    if (info.form == OpForm::Reduction || info.form == OpForm::Cast) continue;
    std::string_view ir = info.ir_name;
    if (ir.empty() || isSymbolName(ir)) continue;
    if (fn == ir) return info.kind;
    if (info.has(OpFlag::LibmSuffix) && fn.size() == ir.size() + 1 && fn.back() == 'f' &&
        fn.substr(0, ir.size()) == ir)
      return info.kind;
    if (info.has(OpFlag::FPrefix2024) && fn.size() == ir.size() + 1 && fn[0] == 'f' && fn.substr(1) == ir)
      return info.kind;
  }
  return std::nullopt;
}

// The reduction `op = X` names (`add`, `mul`, `max`, `fmax`, ...).
std::optional<OpKind> reductionOp(std::string_view x) {
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(kindAt(k));
    if (info.form != OpForm::Reduction) continue;
    if (x == info.ir_name) return info.kind;
    if (info.has(OpFlag::FPrefix2024) && x.size() > 1 && x[0] == 'f' && x.substr(1) == info.ir_name)
      return info.kind;
  }
  return std::nullopt;
}

// An op printed as a symbol: infix for the binary form, prefix for the unary form.
std::optional<OpKind> symbolOp(std::string_view sym, OpForm form) {
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(kindAt(k));
    if (info.form == form && info.ir_name == sym) return info.kind;
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------- arguments

bool Reader::value(Arg& a, int depth) {
  a.tok = p_;
  if (depth > 16) return error(DiagCode::ImportSyntax, "arguments nested too deeply", p_);
  if (atTensor(p_)) {
    auto t = tensor();
    if (!t) return false;
    a.kind = Arg::Kind::Tensor;
    a.tensor = *t;
    if (isPunct(p_, "(") && isIdent(p_ + 1) && isPunct(p_ + 2, ")")) p_ += 3;  // a Welford operand's `(Avg)`
    return true;
  }
  // An axis given as a value (a host program's `axis = iS0{8}`).
  if (isIdent(p_) && std::strchr("irbsnv", str(p_)[0]) && str(p_).size() > 1 &&
      (isPunct(p_ + 1, "{") || (isPunct(p_ + 1, ".") && isIdent(p_ + 2) && isPunct(p_ + 3, "{")))) {
    std::string sig;
    size_t axes_before = f_.axes.size();
    if (!axis(sig)) return false;
    f_.axes.resize(axes_before);
    a.kind = Arg::Kind::Word;
    a.word = sig;
    return true;
  }
  if (eat("{")) {
    a.kind = Arg::Kind::List;
    while (!eat("}")) {
      if (atEnd()) return expect("}");
      Arg item;
      if (!value(item, depth + 1)) return false;
      a.items.push_back(std::move(item));
      eat(",");
    }
    return true;
  }
  if (isPunct(p_, "[")) {
    a.kind = Arg::Kind::Domain;
    MeshId m = kNone;
    return domain(a.domain, a.domain_signature, true, &m);
  }
  if (isIdent(p_) && (isPunct(p_ + 1, ",") || isPunct(p_ + 1, ")") || isPunct(p_ + 1, "}") ||
                      isPunct(p_ + 1, ";") || tok(p_ + 1).line_start)) {
    a.kind = Arg::Kind::Word;
    a.word = std::string(str(p_++));
    return true;
  }
  auto s = scalar();
  if (!s) return false;
  a.kind = Arg::Kind::Scalar;
  a.scalar = *s;
  return true;
}

// `( [key =] value, ... )`; keys are one word or `initial value`; a trailing comma is allowed.
bool Reader::args(std::vector<Arg>& out, int depth) {
  if (!expect("(")) return false;
  if (eat(")")) return true;
  while (true) {
    Arg a;
    if (isIdent(p_) && isPunct(p_ + 1, "=")) {
      a.key = std::string(str(p_));
      p_ += 2;
    } else if (isIdent(p_) && isIdent(p_ + 1) && isPunct(p_ + 2, "=")) {
      a.key = std::string(str(p_)) + " " + std::string(str(p_ + 1));
      p_ += 3;
    }
    if (!value(a, depth + 1)) return false;
    out.push_back(std::move(a));
    if (eat(",")) {
      if (eat(")")) return true;
      continue;
    }
    return expect(")");
  }
}

ScalarId Reader::valueOperand(ScalarId s) {
  const Scalar& x = f_.scalars[s];
  if (x.kind == ScalarKind::Constant && x.name == kNoName && x.dtype == DType::Index &&
      x.value.kind == ConstValue::Kind::Int)
    return f_.addConstInt(x.value.i, DType::Int);
  return s;
}

bool Reader::argScalar(const Arg& a, ScalarId& out) {
  switch (a.kind) {
    case Arg::Kind::Scalar: out = a.scalar; return true;
    case Arg::Kind::Word:
      if (a.word == "true" || a.word == "false") {
        out = f_.addConstBool(a.word == "true");
        return true;
      }
      if (auto s = named(a.word, a.tok)) {
        out = *s;
        return true;
      }
      return false;
    default: return error(DiagCode::ImportSyntax, "expected a scalar here", a.tok);
  }
}

bool Reader::argInt(const Arg& a, int64_t& out) {
  ScalarId s = kNone;
  if (!argScalar(a, s)) return false;
  auto v = intValue(s);
  if (!v) return error(DiagCode::ImportSyntax, "expected an integer constant here", a.tok);
  out = *v;
  return true;
}

template <class T, class Item>
bool Reader::argList(const Arg& a, std::vector<T>& out, Item&& item) {
  if (a.kind != Arg::Kind::List) return error(DiagCode::ImportSyntax, "expected a list `{...}` here", a.tok);
  for (const Arg& x : a.items) {
    T v{};
    if (!item(x, v)) return false;
    out.push_back(v);
  }
  return true;
}

bool Reader::argInts(const Arg& a, std::vector<int64_t>& out) {
  return argList(a, out, [&](const Arg& x, int64_t& v) { return argInt(x, v); });
}

bool Reader::argScalars(const Arg& a, std::vector<ScalarId>& out) {
  return argList(a, out, [&](const Arg& x, ScalarId& s) { return argScalar(x, s); });
}

bool Reader::argBools(const Arg& a, std::vector<bool>& out) {
  return argList(a, out, [&](const Arg& x, bool& b) {
    if (x.kind != Arg::Kind::Word || (x.word != "true" && x.word != "false"))
      return error(DiagCode::ImportSyntax, "expected true or false", x.tok);
    b = x.word == "true";
    return true;
  });
}

bool Reader::argTensor(const Arg& a, TensorId& out, std::string_view fn) {
  if (a.kind == Arg::Kind::Tensor) {
    out = a.tensor;
    return true;
  }
  return error(DiagCode::ImportSyntax, "expected a tensor as an operand of " + std::string(fn), a.tok);
}

// ---------------------------------------------------------------- statements

bool Reader::statement() {
  Pending pd;
  pd.tok = p_;
  while (true) {
    auto t = tensor();
    if (!t) return false;
    pd.out.push_back(*t);
    if (isPunct(p_, "(") && isIdent(p_ + 1) && isPunct(p_ + 2, ")")) p_ += 3;  // T5(Var), T6(Avg)
    if (isPunct(p_, ",") && atTensor(p_ + 1)) {
      ++p_;
      continue;
    }
    break;
  }
  if (!isPunct(p_, "=")) {
    if (pd.out.size() == 1) return true;  // a tensor mentioned on its own
    return error(DiagCode::ImportSyntax, "expected '=' after the outputs" + found(), p_);
  }
  ++p_;
  if (!rhs(pd)) return false;
  eat(";");
  return add(pd);
}

bool Reader::rhs(Pending& pd) {
  size_t at = p_;
  // Prefix: -T, !T, ~T.
  if ((isPunct(p_, "-") || isPunct(p_, "!") || isPunct(p_, "~")) && atTensor(p_ + 1)) {
    auto k = symbolOp(str(p_), OpForm::Unary);
    if (!k)
      return error(DiagCode::ImportUnsupported, "unsupported prefix `" + std::string(str(p_)) + "`", p_);
    ++p_;
    auto t = tensor();
    if (!t) return false;
    pd.op = *k;
    pd.in = {ValueRef::tensor(*t)};
    return true;
  }
  // C-style cast: (float)(T0_g[...]).
  if (isPunct(p_, "(") && isIdent(p_ + 1) && isPunct(p_ + 2, ")") && isPunct(p_ + 3, "(")) {
    auto dt = cppDType(str(p_ + 1));
    if (!dt)
      return error(DiagCode::ImportUnsupported, "unsupported cast `(" + std::string(str(p_ + 1)) + ")`", p_);
    p_ += 4;
    Arg a;
    if (!value(a, 0) || !expect(")")) return false;
    if (a.kind != Arg::Kind::Tensor && a.kind != Arg::Kind::Scalar && a.kind != Arg::Kind::Word)
      return error(DiagCode::ImportSyntax, "expected an operand of the cast", a.tok);
    pd.op = OpKind::Cast;
    ScalarId s = kNone;
    if (a.kind == Arg::Kind::Tensor)
      pd.in = {ValueRef::tensor(a.tensor)};
    else if (argScalar(a, s))
      pd.in = {ValueRef::scalar(s)};
    else
      return false;
    pd.attrs.dtype = *dt;
    return true;
  }
  // A call: name( ... ), Set.Permute( ... ).
  if (isIdent(p_) && !atTensor(p_)) {
    std::string fn(str(p_));
    if (isPunct(p_ + 1, ".") && isIdent(p_ + 2) && isPunct(p_ + 3, "(")) {
      fn += "." + std::string(str(p_ + 2));
      p_ += 3;
      return call(fn, at, pd);
    }
    if (isPunct(p_ + 1, "(")) {
      ++p_;
      return call(fn, at, pd);
    }
  }
  // Infix: a + b. A lone tensor is a copy (2022-23 prints `T2 = T0;`).
  Arg a;
  if (!value(a, 0)) return false;
  if (a.kind != Arg::Kind::Tensor && a.kind != Arg::Kind::Scalar && a.kind != Arg::Kind::Word)
    return error(DiagCode::ImportUnsupported, "unsupported expression form" + found(), at);
  std::optional<OpKind> k;
  if (tok(p_).kind == Tok::Punct) k = symbolOp(str(p_), OpForm::Binary);
  auto operand = [&](const Arg& x, ValueRef& v) {
    if (x.kind == Arg::Kind::Tensor) {
      v = ValueRef::tensor(x.tensor);
      return true;
    }
    ScalarId s = kNone;
    if (!argScalar(x, s)) return false;
    v = ValueRef::scalar(valueOperand(s));
    return true;
  };
  if (!k) {
    if (a.kind == Arg::Kind::Tensor && (isPunct(p_, ";") || atEnd() || tok(p_).line_start)) {
      pd.op = OpKind::Set;
      pd.in = {ValueRef::tensor(a.tensor)};
      return true;
    }
    return error(DiagCode::ImportUnsupported, "unsupported expression form" + found(), at);
  }
  ++p_;
  Arg b;
  if (!value(b, 0)) return false;
  ValueRef va, vb;
  if (!operand(a, va) || !operand(b, vb)) return false;
  pd.op = *k;
  pd.in = {va, vb};
  return true;
}

bool Reader::call(std::string_view fn, size_t at, Pending& pd) {
  std::vector<Arg> a;
  if (!args(a, 0)) return false;
  if (auto c = castFunc(fn)) {
    if (a.size() != 1) return error(DiagCode::ImportSyntax, std::string(fn) + " takes one operand", at);
    ScalarId s = kNone;
    if (a[0].kind == Arg::Kind::Tensor)
      pd.in = {ValueRef::tensor(a[0].tensor)};
    else if (argScalar(a[0], s))
      pd.in = {ValueRef::scalar(s)};
    else
      return false;
    pd.op = OpKind::Cast;
    pd.attrs.dtype = c->second;
    pd.in_dtype = c->first;
    return true;
  }
  std::optional<OpKind> op;
  if (fn == "Set.Permute") op = OpKind::Permute;
  if (fn == "view") op = OpKind::Reshape;
  if (fn == "tanh_gelu") {
    op = OpKind::Gelu;
    pd.attrs.approximate_tanh = true;
  }
  if (fn == "reduction") {
    for (const Arg& x : a)
      if (x.key == "op") {
        if (x.kind != Arg::Kind::Word || !(op = reductionOp(x.word)))
          return error(
              DiagCode::ImportUnsupported,
              "unsupported reduction op `" + (x.kind == Arg::Kind::Word ? x.word : std::string("?")) + "`",
              x.tok);
      }
    if (!op) return error(DiagCode::ImportSyntax, "reduction( ... ) without `op = ...`", at);
  }
  if (!op) op = callOp(fn);
  if (!op && fn == "reduce") {
    // A paste's shorthand for nvFuser's `reduction( ..., op = add )`.
    op = reductionOp("add");
    note("`reduce(` is read as nvFuser's `reduction( ..., op = add )`", at);
  }
  if (!op) {
    // The print declares the outputs' domains: the op imports without a rule.
    op = OpKind::Opaque;
    pd.attrs.name = fn;
    note("op `" + std::string(fn) +
             "` has no shape rule in fusecheck: imported as an opaque op with the operands and outputs "
             "the print shows; analyses of this fusion answer not decided",
         at);
  }
  return applyForm(*op, fn, at, a, pd);
}

// The arguments of op `op` laid out by its form.
bool Reader::applyForm(OpKind op, std::string_view fn, size_t at, std::vector<Arg>& a, Pending& pd) {
  const OpInfo& info = opInfo(op);
  pd.op = op;
  std::vector<Arg*> pos;
  std::vector<Arg*> keyed;
  for (Arg& x : a) (x.key.empty() ? pos : keyed).push_back(&x);
  auto operandAt = [&](size_t i, bool tensor_only) -> bool {
    if (i >= pos.size())
      return error(DiagCode::ImportSyntax, std::string(fn) + " needs " + std::to_string(i + 1) + " operands",
                   at);
    Arg& x = *pos[i];
    if (x.kind == Arg::Kind::Domain && !recoverOperand(x, pd)) return false;
    if (x.kind == Arg::Kind::Tensor) {
      pd.in.push_back(ValueRef::tensor(x.tensor));
      return true;
    }
    if (tensor_only) return argTensor(x, x.tensor, fn);
    ScalarId s = kNone;
    if (!argScalar(x, s)) return false;
    pd.in.push_back(ValueRef::scalar(valueOperand(s)));
    return true;
  };
  auto noMore = [&](size_t n) {
    if (pos.size() > n)
      return error(DiagCode::ImportSyntax, std::string(fn) + " takes " + std::to_string(n) + " operands here",
                   pos[n]->tok);
    return true;
  };
  // Keyed arguments every form accepts or ignores.
  auto keyedArgs = [&](std::initializer_list<std::string_view> allowed) {
    for (Arg* x : keyed) {
      bool ok = x->key == "cache_op" || x->key == "allreduce";
      for (std::string_view k : allowed) ok = ok || x->key == k;
      if (!ok)
        return error(DiagCode::ImportUnsupported,
                     "unsupported argument `" + x->key + "` of " + std::string(fn), x->tok);
      if (x->key == "flags" && !argBools(*x, pd.attrs.flags)) return false;
      if (x->key == "dims" && !argInts(*x, pd.attrs.dims)) return false;
      if (x->key == "keepdim") {
        if (x->kind != Arg::Kind::Word)
          return error(DiagCode::ImportSyntax, "expected true or false", x->tok);
        pd.attrs.keepdim = x->word == "true";
      }
      if (x->key == "correction" && !argInt(*x, pd.attrs.correction)) return false;
      if (x->key == "value" && !argScalar(*x, pd.attrs.value)) return false;
      if (x->key == "initial value") {
        ScalarId s = kNone;
        if (!argScalar(*x, s)) return false;
        if (f_.scalars[s].dtype != DType::Index) pd.init_dtype = f_.scalars[s].dtype;
      }
    }
    return true;
  };
  switch (info.form) {
    case OpForm::Unary: return operandAt(0, false) && noMore(1) && keyedArgs({});
    case OpForm::Binary: return operandAt(0, false) && operandAt(1, false) && noMore(2) && keyedArgs({});
    case OpForm::Where:
      return operandAt(0, false) && operandAt(1, false) && operandAt(2, false) && noMore(3) && keyedArgs({});
    case OpForm::Set:
    case OpForm::SegmentSet:
    case OpForm::Permute:
    case OpForm::Reshape: return operandAt(0, true) && noMore(1) && keyedArgs({});
    case OpForm::Broadcast:
    case OpForm::BroadcastInDim:
      pd.op = OpKind::Broadcast;  // nvFuser prints both as broadcast
      return operandAt(0, true) && noMore(1) && keyedArgs({"flags"});
    case OpForm::Squeeze: return operandAt(0, true) && noMore(1) && keyedArgs({"flags"});
    case OpForm::Expand:
      if (!operandAt(0, true) || !noMore(2) || !keyedArgs({})) return false;
      return pos.size() < 2 || argScalars(*pos[1], pd.attrs.shape);
    case OpForm::Slice: {
      if (!operandAt(0, true) || !noMore(2) || !keyedArgs({})) return false;
      if (pos.size() < 2)
        return error(DiagCode::ImportSyntax, "slice( T, { {start, stop, step} ... } ) needs its ranges", at);
      const Arg& r = *pos[1];
      if (r.kind != Arg::Kind::List)
        return error(DiagCode::ImportSyntax, "expected the ranges `{ {start, stop, step} ... }`", r.tok);
      for (const Arg& x : r.items) {
        std::vector<ScalarId> v;
        if (!argScalars(x, v)) return false;
        if (v.size() != 3)
          return error(DiagCode::ImportSyntax, "a slice range is {start, stop, step}", x.tok);
        pd.attrs.ranges.push_back(SliceRange{v[0], v[1], v[2]});
      }
      return true;
    }
    case OpForm::Pad: {
      if (!operandAt(0, true) || !noMore(2) || !keyedArgs({"value"})) return false;
      std::vector<ScalarId> w;
      if (pos.size() < 2 || !argScalars(*pos[1], w))
        return pos.size() < 2 ? error(DiagCode::ImportSyntax, "pad( T, {widths} ) needs its widths", at)
                              : false;
      // Printed: every axis, outermost first, (left, right); stored: innermost first, trimmed.
      for (size_t i = w.size() / 2; i-- > 0;) {
        pd.attrs.pad.push_back(w[2 * i]);
        pd.attrs.pad.push_back(w[2 * i + 1]);
      }
      while (pd.attrs.pad.size() >= 2 && isZero(pd.attrs.pad[pd.attrs.pad.size() - 1]) &&
             isZero(pd.attrs.pad[pd.attrs.pad.size() - 2]))
        pd.attrs.pad.resize(pd.attrs.pad.size() - 2);
      return true;
    }
    case OpForm::Cat: {
      if (pos.size() < 2)
        return error(DiagCode::ImportSyntax, "cat( T, ..., dim ) needs its operands and dim", at);
      for (size_t i = 0; i + 1 < pos.size(); ++i)
        if (!operandAt(i, true)) return false;
      return argInt(*pos.back(), pd.attrs.dim) && keyedArgs({});
    }
    case OpForm::Reduction:
      return operandAt(0, true) && noMore(1) && keyedArgs({"op", "initial value", "keepdim", "dims"});
    case OpForm::Mean:
    case OpForm::Var:
    case OpForm::VarMean:
      return operandAt(0, true) && noMore(1) && keyedArgs({"dims", "keepdim", "correction"});
    case OpForm::Welford:  // `Welford ( T0(Avg), allreduce = false )`: the reduced axes from the outputs
      return operandAt(0, true) && noMore(1) && keyedArgs({});
    case OpForm::Full: {
      if (pos.size() != 2)
        return error(DiagCode::ImportSyntax, "full( {shape}, value ) takes a shape and a value", at);
      if (!argScalars(*pos[0], pd.attrs.shape) || !argScalar(*pos[1], pd.attrs.value)) return false;
      return keyedArgs({});
    }
    case OpForm::Iota: {
      if (pos.size() != 4)
        return error(DiagCode::ImportSyntax, "iota( length, start, step, dtype ) takes 4 arguments", at);
      ScalarId len = kNone;
      if (!argScalar(*pos[0], len) || !argScalar(*pos[1], pd.attrs.start) ||
          !argScalar(*pos[2], pd.attrs.step))
        return false;
      if (pos[3]->kind != Arg::Kind::Word || !cppDType(pos[3]->word))
        return error(DiagCode::ImportUnsupported, "unsupported iota dtype", pos[3]->tok);
      pd.attrs.shape = {len};
      pd.attrs.dtype = cppDType(pos[3]->word);
      return keyedArgs({});
    }
    case OpForm::Rng: {
      // RNGOp::toString: op({shape}, [p0, p1, ]dtype[, seed]) (csrc/ir/internal_nodes.cpp:1377-1395
      // @ 81c4b22fd); the offset is not printed.
      size_t d = 1;
      while (d < pos.size() && !(pos[d]->kind == Arg::Kind::Word && cppDType(pos[d]->word))) ++d;
      if (pos.empty() || d == pos.size() || (d != 1 && d != 3) || pos.size() > d + 2)
        return error(DiagCode::ImportSyntax,
                     std::string(fn) +
                         "( {shape}, [low, high, ]dtype[, seed] ) takes a shape, two parameters or none, "
                         "a dtype and an optional seed",
                     at);
      if (!argScalars(*pos[0], pd.attrs.shape)) return false;
      if (d == 1) {
        pd.in.push_back(ValueRef::scalar(f_.addConstFloat(0.0, DType::Double)));
        pd.in.push_back(ValueRef::scalar(f_.addConstFloat(1.0, DType::Double)));
      } else if (!operandAt(1, false) || !operandAt(2, false)) {
        return false;
      }
      pd.attrs.dtype = cppDType(pos[d]->word);
      if (pos.size() == d + 2) {
        ScalarId seed = kNone;
        if (!argScalar(*pos[d + 1], seed)) return false;
        pd.in.push_back(ValueRef::scalar(seed));
      }
      // An output printed without Symbolic axes (rand_like's copy of its operand's axes, or a
      // concretized factory) keeps its IterTypes as the op's flags (ops.def), so the rule gives
      // them and not factoryOutput's Symbolic ones.
      if (pd.out.size() == 1) {
        const auto& lg = f_.tensors[pd.out[0]].logical;
        auto flags = lg.size() == pd.attrs.shape.size() ? likeFlags(f_, lg) : std::nullopt;
        // A Broadcast axis's printed size must be the 1 the rule checks too.
        for (size_t i = 0; flags && i < flags->size(); ++i)
          if ((*flags)[i] && constIntOf(f_, pd.attrs.shape[i]) != 1) flags.reset();
        if (flags) pd.attrs.flags = std::move(*flags);
      }
      return keyedArgs({});
    }
    case OpForm::Matmul: return operandAt(0, true) && operandAt(1, true) && noMore(2) && keyedArgs({});
    case OpForm::Linear:
      if (!operandAt(0, true) || !operandAt(1, true) || !noMore(3) || !keyedArgs({})) return false;
      return pos.size() < 3 || operandAt(2, true);
    case OpForm::Opaque:
      // Every tensor or scalar argument, positional or keyed, in the order printed; flags and
      // options (`cache_op=Streaming`, lists) say nothing about what flows into the op.
      for (Arg& x : a) {
        if (x.kind == Arg::Kind::Tensor) {
          pd.in.push_back(ValueRef::tensor(x.tensor));
        } else if (x.kind == Arg::Kind::Scalar) {
          pd.in.push_back(ValueRef::scalar(x.scalar));
          // An indexing op's `dim = 0`: the axis it works on, which concretization's model reads.
          if (x.key == "dim")
            if (std::optional<int64_t> d = constIntOf(f_, x.scalar)) pd.attrs.dims = {*d};
        } else if (x.kind == Arg::Kind::Word && x.key != "cache_op") {
          ScalarId s = kNone;
          if (x.word == "true" || x.word == "false" || scalarName(x.word)) {
            if (!argScalar(x, s)) return false;
            pd.in.push_back(ValueRef::scalar(s));
          }
        }
      }
      return true;
    case OpForm::Cast: break;
  }
  return error(DiagCode::ImportUnsupported, "op `" + std::string(fn) + "` is not modeled", at);
}

// A bracketed domain printed where an operand belongs, without a tensor name: a slip of the person
// who wrote the paste. For an op whose output keeps its operand's axes (unary, copies, casts,
// reductions), the operand is the one tensor printed so far whose axes (Reduction axes aside)
// have the output's extents.
bool Reader::recoverOperand(Arg& a, const Pending& pd) {
  const OpForm form = opInfo(pd.op).form;
  bool keeps = form == OpForm::Unary || form == OpForm::Set || form == OpForm::SegmentSet ||
               form == OpForm::Cast || form == OpForm::Reduction;
  if (!keeps || pd.out.empty())
    return error(DiagCode::ImportSyntax, "a domain `[...]` is printed where a tensor belongs", a.tok);
  std::vector<ScalarId> want;
  for (AxisId x : f_.tensors[pd.out[0]].logical) want.push_back(f_.axes[x].extent);
  std::vector<TensorId> hits;
  std::string printed_as;
  for (TensorId t = 0; t < f_.tensors.size(); ++t) {
    if (std::find(pd.out.begin(), pd.out.end(), t) != pd.out.end()) continue;
    if (printed_[t].signature == a.domain_signature) printed_as = std::string(f_.tensorName(t));
    std::vector<ScalarId> have;
    for (AxisId x : nonReduction(t)) have.push_back(f_.axes[x].extent);
    if (have == want) hits.push_back(t);
  }
  if (hits.size() != 1)
    return error(DiagCode::ImportSyntax,
                 "a domain `[...]` is printed where a tensor belongs, and " +
                     std::string(hits.empty() ? "no" : "more than one") + " tensor printed before it has " +
                     std::string(f_.tensorName(pd.out[0])) + "'s extents",
                 a.tok);
  std::string out(f_.tensorName(pd.out[0])), got(f_.tensorName(hits[0]));
  note("the operand is printed as a bare domain" +
           (printed_as.empty() ? std::string() : " (" + printed_as + "'s)") + "; " + got +
           " is the tensor printed before whose axes match " + out + "'s, and is taken as the operand",
       a.tok);
  a.kind = Arg::Kind::Tensor;
  a.tensor = hits[0];
  return true;
}

bool Reader::add(Pending& pd) {
  for (TensorId o : pd.out) {
    if (f_.tensors[o].definition == kNone) continue;
    const Expr& prev = f_.exprs[f_.tensors[o].definition];
    if (prev.op == pd.op && prev.inputs == pd.in) {  // the same expr printed again
      addToGroup(f_.tensors[o].definition);
      return true;
    }
    return error(DiagCode::ImportUnresolved,
                 std::string(f_.tensorName(o)) + " is defined twice by different exprs", pd.tok);
  }
  for (const ValueRef& v : pd.in)
    if (v.isTensor() && std::find(pd.out.begin(), pd.out.end(), v.id) != pd.out.end())
      return error(DiagCode::ImportUnresolved,
                   std::string(f_.tensorName(v.id)) + " is defined in terms of itself", pd.tok);
  const int need = opInfo(pd.op).num_outputs;
  if (need >= 0 && pd.out.size() != static_cast<size_t>(need))
    return error(DiagCode::ImportSyntax,
                 std::string(opName(pd.op)) + " has " + std::to_string(need) +
                     " output(s), the print shows " + std::to_string(pd.out.size()),
                 pd.tok);
  expr_in_dtype_.push_back(pd.in_dtype);
  expr_init_dtype_.push_back(pd.init_dtype);
  ExprId e = f_.addExpr(pd.op, pd.in, pd.out, pd.attrs);
  expr_tok_.push_back(pd.tok);
  addToGroup(e);
  return true;
}

}  // namespace fc::ir_text
