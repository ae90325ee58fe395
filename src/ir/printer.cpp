// nvFuser-style printing of the IR. Two styles:
//   Y2024: the mid-2024 print (PRE, bfa518ceb772): `T4_g[ iS11{i3} ] (DeviceMesh{0 1})`,
//          printMath lists inputs/outputs with `, <dtype>` and closes `%kernel_math` with `}`.
//   Head:  the newest print: `T4_g_float[iS11{i3}] (DeviceMesh{0 1})`, broadcast and squeeze
//          list their flags, `} // %kernel_math `.
// Each op prints in the layout nvFuser's Expr::toString uses for the node it lowers to (cast
// names such as `__half2float`, inline operators for + - * / and comparisons, `reduction( ... )`,
// `Set.Permute( ... )`, `matmul(A,\n B)`, ...). Ops nvFuser only has as composites (mean, var,
// var_mean, gelu) print in a form of our own, documented in docs/import.md; the printed-IR
// importer reads all of them back.
//
// Complexity: linear in the size of the fusion (scalar expressions are printed with an explicit
// stack, so deep expressions cannot exhaust the call stack); expr order is nvFuser's
// StmtSort order (depth-first from the leaf tensors, operands in order), computed iteratively.
#include "ir/printer.h"

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/topo_order.h"

namespace fc {
namespace {

// nvFuser's max_digits10 per floating dtype (csrc/type.cpp).
int maxDigits10(DType t) {
  switch (t) {
    case DType::Float:
    case DType::ComplexFloat: return 9;
    case DType::Double:
    case DType::ComplexDouble: return 17;
    case DType::Half: return 5;
    case DType::BFloat16: return 4;
    case DType::Float8_e4m3fn: return 3;
    case DType::Float8_e5m2: return 2;
    default: return 17;
  }
}

std::string fmtDouble(double v, int precision) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

// A constant as nvFuser's Val::toString prints it: `float(0)`, `true`, `128`.
std::string constToString(const ConstValue& v, DType dtype) {
  if (dtype == DType::Bool || v.kind == ConstValue::Kind::Bool) {
    if (v.kind == ConstValue::Kind::Float) return v.f != 0 ? "true" : "false";
    return v.i != 0 ? "true" : "false";
  }
  if (isComplex(dtype)) {
    // std::complex's operator<< inside the dtype's call: `std::complex<double>((3,0.5))`
    // (csrc/ir/base_nodes.cpp Val::toInlineString @ 81c4b22fd).
    const double re = v.kind == ConstValue::Kind::Float ? v.f : static_cast<double>(v.i);
    const double im = v.kind == ConstValue::Kind::Float ? v.im : 0.0;
    return std::string(dtypeCppName(dtype)) + "((" + fmtDouble(re, maxDigits10(dtype)) + "," +
           fmtDouble(im, maxDigits10(dtype)) + "))";
  }
  if (isFloatingPoint(dtype)) {
    std::string body =
        v.kind == ConstValue::Kind::Float ? fmtDouble(v.f, maxDigits10(dtype)) : std::to_string(v.i);
    return std::string(dtypeCppName(dtype)) + "(" + body + ")";
  }
  if (v.kind == ConstValue::Kind::Float) return fmtDouble(v.f, 17);
  return std::to_string(v.i);
}

bool validScalar(const Fusion& f, ScalarId s) { return s < f.scalars.size(); }

// The inline string of scalar `root`; derived scalars print as `( a + b )`, `( ceilDiv(a, b) )`.
// Iterative post-order over the expression DAG with memoisation.
std::string scalarInline(const Fusion& f, ScalarId root) {
  if (!validScalar(f, root)) return "<invalid-scalar>";
  std::unordered_map<ScalarId, std::string> memo;
  struct Frame {
    ScalarId id;
    bool expanded;
  };
  std::vector<Frame> stack{{root, false}};
  auto leaf = [&](ScalarId id, std::string& out) -> bool {
    const Scalar& s = f.scalars[id];
    switch (s.kind) {
      case ScalarKind::Symbol:
      case ScalarKind::Input: out = std::string(f.scalarName(id)); return true;
      case ScalarKind::Constant: out = constToString(s.value, s.dtype); return true;
      case ScalarKind::Derived:
        if (s.op == ScalarOp::Size) {
          std::string t = s.size_of < f.tensors.size() ? std::string(f.tensorName(s.size_of)) : "?";
          out = "( size(" + t + ", " + std::to_string(s.size_dim) + ") )";
          return true;
        }
        return false;
    }
    return false;
  };
  size_t steps = 0;
  while (!stack.empty()) {
    if (++steps > 4 * f.scalars.size() + 16) return "<cyclic-scalar>";  // a malformed DAG
    Frame fr = stack.back();
    if (memo.count(fr.id)) {
      stack.pop_back();
      continue;
    }
    std::string out;
    if (leaf(fr.id, out)) {
      memo.emplace(fr.id, std::move(out));
      stack.pop_back();
      continue;
    }
    const Scalar& s = f.scalars[fr.id];
    bool unary = s.op == ScalarOp::Neg;
    if (!validScalar(f, s.lhs) || (!unary && !validScalar(f, s.rhs))) {
      memo.emplace(fr.id, "<invalid-scalar>");
      stack.pop_back();
      continue;
    }
    if (!fr.expanded) {
      stack.back().expanded = true;
      stack.push_back({s.lhs, false});
      if (!unary) stack.push_back({s.rhs, false});
      continue;
    }
    const std::string& a = memo[s.lhs];
    std::string body;
    switch (s.op) {
      case ScalarOp::Add: body = a + " + " + memo[s.rhs]; break;
      case ScalarOp::Sub: body = a + " - " + memo[s.rhs]; break;
      case ScalarOp::Mul: body = a + " * " + memo[s.rhs]; break;
      case ScalarOp::Div: body = a + " / " + memo[s.rhs]; break;
      case ScalarOp::Mod: body = a + " % " + memo[s.rhs]; break;
      case ScalarOp::CeilDiv: body = "ceilDiv(" + a + ", " + memo[s.rhs] + ")"; break;
      case ScalarOp::Max: body = "max(" + a + ", " + memo[s.rhs] + ")"; break;
      case ScalarOp::Min: body = "min(" + a + ", " + memo[s.rhs] + ")"; break;
      case ScalarOp::Neg: body = "-" + a; break;
      default: body = "<invalid-scalar>"; break;
    }
    memo.emplace(fr.id, "( " + body + " )");
    stack.pop_back();
  }
  return memo[root];
}

// nvFuser's cast_func_str for the dtype pairs we model (supported_casts2string, csrc/type.cpp:945 @
// 81c4b22fd).
std::string castName(DType from, DType to) {
  auto shortName = [](DType t) -> std::string {
    switch (t) {
      case DType::Float: return "float";
      case DType::Double: return "double";
      case DType::Half: return "half";
      case DType::BFloat16: return "bfloat";
      case DType::Float8_e4m3fn: return "e4m3";
      case DType::Float8_e5m2: return "e5m2";
      case DType::Float8_e8m0fnu: return "e8m0";
      case DType::Float4_e2m1fn: return "e2m1";
      case DType::Bool: return "bool";
      default: return "int";
    }
  };
  auto lowPrecision = [](DType t) {
    return t == DType::Half || t == DType::BFloat16 || t == DType::Float8_e4m3fn || t == DType::Float8_e5m2 ||
           t == DType::Float8_e8m0fnu || t == DType::Float4_e2m1fn;
  };
  // Complex casts (csrc/type.cpp:964-1160 @ 81c4b22fd): to a complex dtype __to_complex_float /
  // __to_complex_double; from one, the real part then the target, __real_then_to_int64.
  if (isComplex(to)) return to == DType::ComplexFloat ? "__to_complex_float" : "__to_complex_double";
  if (isComplex(from)) {
    switch (to) {
      case DType::Int32: return "__real_then_to_int32";
      case DType::Int: return "__real_then_to_int64";
      case DType::Index: return "__real_then_to_index";
      default: return "__real_then_to_" + shortName(to);
    }
  }
  if (lowPrecision(from)) {
    std::string dst;
    switch (to) {
      case DType::Int32: dst = "int32"; break;
      case DType::Int: dst = "int"; break;
      case DType::Index: dst = "index"; break;
      default: dst = shortName(to); break;
    }
    std::string src = shortName(from);
    if (src == "e4m3" || src == "e5m2") return "__" + src + "2" + dst;  // __e4m32float
    return "__" + src + "2" + dst;
  }
  if (lowPrecision(to)) {
    std::string src = isIntegral(from) ? "int" : shortName(from);
    return "__" + src + "2" + shortName(to);
  }
  switch (to) {
    case DType::Int32: return "(int32_t)";
    case DType::Int: return "(int64_t)";
    default: return "(" + std::string(dtypeCppName(to)) + ")";
  }
}

class Printer {
 public:
  Printer(const Fusion& f, PrintStyle style) : f_(f), style_(style) {}

  bool head() const { return style_ == PrintStyle::Head; }

  std::string tensor(TensorId t) const {
    if (t >= f_.tensors.size()) return "<invalid-tensor>";
    const Tensor& tv = f_.tensors[t];
    std::string s(f_.tensorName(t));
    s += '_';
    s += memorySuffix(tv.memory);
    if (head()) {
      s += '_';
      s += dtypeCppName(tv.dtype);
    }
    const auto& loop = tv.loopDomain();
    if (head()) {
      s += '[';
      for (size_t i = 0; i < loop.size(); ++i) {
        if (i) s += ", ";
        s += axisToString(f_, loop[i]);
      }
      s += ']';
    } else if (loop.empty()) {
      s += "[ ]";
    } else {
      s += "[ ";
      for (size_t i = 0; i < loop.size(); ++i) {
        if (i) s += ", ";
        s += axisToString(f_, loop[i]);
      }
      s += " ]";
    }
    if (tv.mesh != kNone && tv.mesh < f_.meshes.size()) s += " (" + f_.meshes[tv.mesh].toString(head()) + ")";
    return s;
  }

  std::string operand(const ValueRef& v) const {
    if (v.isTensor()) return tensor(v.id);
    return scalarToString(f_, v.id);
  }

  DType operandDType(const ValueRef& v) const {
    if (v.isTensor()) return v.id < f_.tensors.size() ? f_.tensors[v.id].dtype : DType::Float;
    return validScalar(f_, v.id) ? f_.scalars[v.id].dtype : DType::Double;
  }

  std::string expr(ExprId id) const {
    if (id >= f_.exprs.size()) return "<invalid-expr>\n";
    const Expr& e = f_.exprs[id];
    auto in = [&](size_t i) -> std::string {
      return i < e.inputs.size() ? operand(e.inputs[i]) : std::string("<missing>");
    };
    auto out = [&](size_t i) -> std::string {
      return i < e.outputs.size() ? tensor(e.outputs[i]) : std::string("<missing>");
    };
    DType out_dtype = !e.outputs.empty() && e.outputs[0] < f_.tensors.size() ? f_.tensors[e.outputs[0]].dtype
                                                                             : DType::Float;
    const std::string o = out(0);
    const OpInfo& info = opInfo(e.op);
    switch (info.form) {
      case OpForm::Set:
      case OpForm::Permute: {
        bool permute =
            info.form == OpForm::Permute || (!e.outputs.empty() && e.outputs[0] < f_.tensors.size() &&
                                             !f_.tensors[e.outputs[0]].root.empty());
        return o + "\n   = Set" + (permute ? ".Permute" : "") + "( " + in(0) + ", cache_op=Streaming )\n";
      }
      case OpForm::SegmentSet: return o + "\n   = SegmenterSet( " + in(0) + " )\n";
      case OpForm::Cast: {
        DType from = e.inputs.empty() ? out_dtype : operandDType(e.inputs[0]);
        DType to = e.attrs.dtype.value_or(out_dtype);
        if (from == to) return o + "\n   = Set( " + in(0) + ", cache_op=Streaming )\n";
        return o + "\n   = " + castName(from, to) + "(" + in(0) + ");\n";
      }
      case OpForm::Where:
        return o + "\n   = " + std::string(info.ir_name) + "(" + in(0) + "\n  , " + in(1) + "\n  , " + in(2) +
               ");\n";
      case OpForm::Broadcast:
      case OpForm::BroadcastInDim: {
        std::string s = o + "\n   = broadcast( " + in(0);
        if (head()) s += ", flags = {" + flagsString(broadcastFlags(e)) + "}";
        return s + " )\n";
      }
      case OpForm::Squeeze: {
        std::string s = o + "\n   = squeeze( " + in(0);
        if (head()) s += ", flags = {" + flagsString(squeezeFlags(e)) + "}";
        return s + " )\n";
      }
      case OpForm::Expand: {
        if (head()) return o + " = expand( " + in(0) + " )\n";
        std::string s = o + " = expand( " + in(0) + ", {";
        for (size_t i = 0; i < e.attrs.shape.size(); ++i) {
          if (i) s += ", ";
          s += scalarToString(f_, e.attrs.shape[i]);
        }
        return s + "} )\n";
      }
      case OpForm::Reshape: return o + (head() ? " = reshape( " : " = view( ") + in(0) + " )\n";
      case OpForm::Slice: return o + "\n   = slice( " + in(0) + ", {" + sliceRanges(e) + " } )\n";
      case OpForm::Pad: {
        std::string s = o + "\n   = pad( " + in(0) + ", {" + padWidths(e) + "}";
        if (e.attrs.value != kNone && !isZeroConst(e.attrs.value))
          s += ", value = " + scalarToString(f_, e.attrs.value);
        return s + " )\n";
      }
      case OpForm::Cat: {
        std::string s = o + "\n   = cat( ";
        for (size_t i = 0; i < e.inputs.size(); ++i) s += in(i) + ", ";
        return s + std::to_string(e.attrs.dim) + " )\n";
      }
      case OpForm::Reduction: {
        std::string s = o + "\n   = reduction( " + in(0) + ", op = " + irName(info) +
                        ", initial value = " + reductionInit(info.ir_name, out_dtype) + ", allreduce = false";
        if (e.attrs.keepdim) s += ", keepdim = true, dims = {" + dimsString(e.attrs.dims) + "}";
        return s + " )\n";
      }
      case OpForm::Mean:
        return o + "\n   = mean( " + in(0) + ", dims = {" + dimsString(e.attrs.dims) +
               "}, keepdim = " + (e.attrs.keepdim ? "true" : "false") + " )\n";
      case OpForm::Var:
        return o + "\n   = var( " + in(0) + ", dims = {" + dimsString(e.attrs.dims) +
               "}, correction = " + std::to_string(e.attrs.correction) +
               ", keepdim = " + (e.attrs.keepdim ? "true" : "false") + " )\n";
      case OpForm::VarMean:
        return o + "(Var),\n" + out(1) + "(Avg)\n   = var_mean( " + in(0) + ", dims = {" +
               dimsString(e.attrs.dims) + "}, correction = " + std::to_string(e.attrs.correction) +
               ", keepdim = " + (e.attrs.keepdim ? "true" : "false") + " )\n";
      case OpForm::Welford:  // WelfordOp::toString, csrc/ir/internal_nodes.cpp:2033-2052 @ 81c4b22fd
        return o + "(Avg),\n" + out(1) + "(Var),\n" + out(2) + "(Count)\n = Welford ( " + in(0) +
               "(Avg), \n  allreduce = false )\n";
      case OpForm::Full: {
        DType dt = e.attrs.dtype.value_or(out_dtype);
        std::string fill;
        if (!info.has(OpFlag::FillZero) && !info.has(OpFlag::FillOne)) {
          // nvFuser casts the fill value to the output dtype: a constant prints in that dtype.
          if (validScalar(f_, e.attrs.value) && f_.scalars[e.attrs.value].kind == ScalarKind::Constant)
            fill = constToString(f_.scalars[e.attrs.value].value, dt);
          else
            fill = e.attrs.value != kNone ? scalarToString(f_, e.attrs.value) : "<missing>";
        } else
          fill = constToString(ConstValue{ConstValue::Kind::Int, info.has(OpFlag::FillOne) ? 1 : 0, 0}, dt);
        std::string s = o + "\n   = full({";
        for (size_t i = 0; i < e.attrs.shape.size(); ++i) {
          if (i) s += ", ";
          s += scalarToString(f_, e.attrs.shape[i]);
        }
        s += "}";
        if (!e.attrs.shape.empty()) s += ", ";
        return s + fill + ");\n";
      }
      case OpForm::Rng: {
        // RNGOp::toString (csrc/ir/internal_nodes.cpp:1377-1395 @ 81c4b22fd): parameters 0 and 1
        // give the plain op, printed without them (csrc/ops/arith.cpp:208-227).
        auto constant = [&](size_t i, double v) {
          if (i >= e.inputs.size() || !e.inputs[i].isScalar() || !validScalar(f_, e.inputs[i].id))
            return false;
          const Scalar& sc = f_.scalars[e.inputs[i].id];
          if (sc.kind != ScalarKind::Constant) return false;
          return sc.value.kind == ConstValue::Kind::Float ? sc.value.f == v
                                                          : static_cast<double>(sc.value.i) == v;
        };
        bool plain = constant(0, 0.0) && constant(1, 1.0);
        std::string s = o + "\n   = " +
                        (plain ? std::string(e.op == OpKind::Uniform ? "rng_uniform" : "rng_normal_standard")
                               : std::string(info.ir_name)) +
                        "({";
        for (size_t i = 0; i < e.attrs.shape.size(); ++i) {
          if (i) s += ", ";
          s += scalarToString(f_, e.attrs.shape[i]);
        }
        s += "}, ";
        if (!plain) s += in(0) + ", " + in(1) + ", ";
        s += std::string(dtypeCppName(e.attrs.dtype.value_or(out_dtype)));
        if (e.inputs.size() > 2) s += ", " + in(2);
        return s + ");\n";
      }
      case OpForm::Iota: {
        DType dt = e.attrs.dtype.value_or(out_dtype);
        std::string len = e.attrs.shape.empty() ? "<missing>" : scalarToString(f_, e.attrs.shape[0]);
        std::string start =
            e.attrs.start != kNone ? scalarToString(f_, e.attrs.start) : constToString(ConstValue{}, dt);
        std::string step = e.attrs.step != kNone ? scalarToString(f_, e.attrs.step)
                                                 : constToString(ConstValue{ConstValue::Kind::Int, 1, 0}, dt);
        return o + "\n   = iota(" + len + ", " + start + ", " + step + ", " + std::string(dtypeCppName(dt)) +
               ");\n";
      }
      case OpForm::Matmul: return o + "\n   = matmul(" + in(0) + ",\n            " + in(1) + ")\n";
      case OpForm::Linear: {
        std::string s = o + "\n   = linear(" + in(0) + ",\n            " + in(1);
        if (e.inputs.size() > 2) s += "  ,\n          " + in(2);
        return s + "  )\n";
      }
      case OpForm::Unary: {
        // A symbol prints as a prefix ("-T0", "!T0"); a word as a call, with
        // nvFuser's "f" suffix on Float for the libm functions.
        const std::string name = irName(info);
        if (isSymbol(name)) return o + "\n   = " + name + in(0) + ";\n";
        bool suffix = info.has(OpFlag::LibmSuffix) && out_dtype == DType::Float;
        return o + "\n   = " + name + (suffix ? "f" : "") + "(" + in(0) + ");\n";
      }
      case OpForm::Binary: {
        const std::string name = irName(info);
        if (isSymbol(name)) return o + "\n   = " + in(0) + "\n   " + name + " " + in(1) + ";\n";
        return o + "\n   = " + name + "(" + in(0) + "\n  , " + in(1) + ");\n";
      }
      case OpForm::Opaque: {
        // Every output, then the call with its operands, as nvFuser prints an op of several outputs.
        std::string s = o;
        for (size_t i = 1; i < e.outputs.size(); ++i) s += ",\n" + out(i);
        s += "\n   = " + (e.attrs.name.empty() ? std::string("opaque") : e.attrs.name) + "(";
        for (size_t i = 0; i < e.inputs.size(); ++i) s += (i ? ",\n            " : "") + in(i);
        return s + ")\n";
      }
    }
    return o + "\n   = " + std::string(opName(e.op)) + "( <unprintable> )\n";
  }

  // The op's name as this print style writes it.
  std::string irName(const OpInfo& info) const {
    if (info.has(OpFlag::FPrefix2024) && !head()) return "f" + std::string(info.ir_name);
    return std::string(info.ir_name);
  }

  static bool isSymbol(std::string_view name) {
    return !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0]));
  }

  // nvFuser's StmtSort order: depth-first from the leaf tensors (no uses, creation order), each
  // expr after the producers of its operands in operand order. Exprs not reached (only possible
  // in malformed, cyclic input) follow in index order so nothing is dropped.
  std::vector<ExprId> order() const {
    const size_t nt = f_.tensors.size(), ne = f_.exprs.size();
    std::vector<char> used(nt, 0);
    for (const Expr& e : f_.exprs)
      for (const ValueRef& v : e.inputs)
        if (v.isTensor() && v.id < nt) used[v.id] = 1;
    std::vector<ExprId> roots;
    for (TensorId t = 0; t < nt; ++t)
      if (!used[t] && f_.tensors[t].definition < ne) roots.push_back(f_.tensors[t].definition);
    ProducerWalk walk(f_);
    for (ExprId r : roots) walk.visit(r);
    std::vector<ExprId> result = walk.order();
    for (ExprId e = 0; e < ne; ++e)
      if (!walk.visited(e)) result.push_back(e);
    return result;
  }

 private:
  static std::string flagsString(const std::vector<bool>& flags) {
    std::string s;
    for (size_t i = 0; i < flags.size(); ++i) {
      if (i) s += ", ";
      s += flags[i] ? "true" : "false";
    }
    return s;
  }
  static std::string dimsString(const std::vector<int64_t>& dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i) s += ", ";
      s += std::to_string(dims[i]);
    }
    return s;
  }

  std::vector<bool> broadcastFlags(const Expr& e) const {
    if (opInfo(e.op).form == OpForm::Broadcast) return e.attrs.flags;
    // broadcast_in_dim: output axis i is new unless it is listed in broadcast_dims.
    size_t rank = e.attrs.shape.size();
    std::vector<bool> flags(rank, true);
    for (int64_t d : e.attrs.dims)
      if (d >= 0 && static_cast<size_t>(d) < rank) flags[static_cast<size_t>(d)] = false;
    return flags;
  }

  std::vector<bool> squeezeFlags(const Expr& e) const {
    size_t rank = 0;
    if (!e.inputs.empty() && e.inputs[0].isTensor() && e.inputs[0].id < f_.tensors.size())
      rank = f_.nonReductionRank(e.inputs[0].id);
    std::vector<bool> flags(rank, false);
    for (int64_t d : e.attrs.dims) {
      int64_t dd = d < 0 ? d + static_cast<int64_t>(rank) : d;
      if (dd >= 0 && static_cast<size_t>(dd) < rank) flags[static_cast<size_t>(dd)] = true;
    }
    return flags;
  }

  bool isZeroConst(ScalarId s) const {
    if (!validScalar(f_, s)) return false;
    const Scalar& sc = f_.scalars[s];
    if (sc.kind != ScalarKind::Constant) return false;
    return sc.value.kind == ConstValue::Kind::Float ? sc.value.f == 0 : sc.value.i == 0;
  }

  // Non-reduction logical axes of the first input tensor.
  std::vector<AxisId> inputAxes(const Expr& e) const {
    std::vector<AxisId> r;
    if (e.inputs.empty() || !e.inputs[0].isTensor() || e.inputs[0].id >= f_.tensors.size()) return r;
    for (AxisId a : f_.tensors[e.inputs[0].id].logical)
      if (a < f_.axes.size() && f_.axes[a].iter != IterType::Reduction) r.push_back(a);
    return r;
  }

  std::string sliceRanges(const Expr& e) const {
    std::vector<AxisId> axes = inputAxes(e);
    std::string s;
    for (size_t i = 0; i < e.attrs.ranges.size(); ++i) {
      const SliceRange& r = e.attrs.ranges[i];
      std::string start = r.start != kNone ? scalarToString(f_, r.start) : "0";
      std::string stop = r.stop != kNone   ? scalarToString(f_, r.stop)
                         : i < axes.size() ? scalarToString(f_, f_.axes[axes[i]].extent)
                                           : "<missing>";
      std::string step = r.step != kNone ? scalarToString(f_, r.step) : "1";
      s += " {" + start + ", " + stop + ", " + step + "}";
    }
    return s;
  }

  // nvFuser normalises pad widths to every axis, outermost first, (left, right) pairs; ours are
  // torch-ordered (innermost axis first) and may cover only the inner axes.
  std::string padWidths(const Expr& e) const {
    size_t rank = inputAxes(e).size();
    size_t padded = e.attrs.pad.size() / 2;
    std::vector<std::string> w;
    for (size_t i = 0; i + padded < rank; ++i) {
      w.push_back("0");
      w.push_back("0");
    }
    for (size_t i = padded; i-- > 0;) {
      w.push_back(scalarToString(f_, e.attrs.pad[2 * i]));
      w.push_back(scalarToString(f_, e.attrs.pad[2 * i + 1]));
    }
    std::string s;
    for (size_t i = 0; i < w.size(); ++i) {
      if (i) s += ", ";
      s += w[i];
    }
    return s;
  }

  // The identity of a reduction op: 0 for add, 1 for mul, the lowest value
  // for max, the highest for min.
  static std::string reductionInit(std::string_view op, DType dt) {
    ConstValue v;
    if (op == "add" || op == "mul") {
      v.kind = ConstValue::Kind::Int;
      v.i = op == "mul" ? 1 : 0;
      return constToString(v, dt);
    }
    bool lowest = op == "max";
    if (dt == DType::Bool) return lowest ? "false" : "true";
    if (isFloatingPoint(dt)) {
      v.kind = ConstValue::Kind::Float;
      v.f = lowest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      return constToString(v, dt);
    }
    v.kind = ConstValue::Kind::Int;
    if (dt == DType::Int32)
      v.i = lowest ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
    else
      v.i = lowest ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    return constToString(v, dt);
  }

  const Fusion& f_;
  PrintStyle style_;
};

}  // namespace

std::string scalarToString(const Fusion& f, ScalarId s) { return scalarInline(f, s); }

std::string axisToString(const Fusion& f, AxisId a) {
  if (a >= f.axes.size()) return "<invalid-axis>";
  const Axis& ax = f.axes[a];
  std::string s;
  s += iterTypeLetter(ax.iter);
  s += parallelTypePrinted(ax.parallel);
  s += std::to_string(ax.number);
  s += '{';
  s += scalarInline(f, ax.extent);
  if (ax.expanded != kNone) s += " ex " + scalarInline(f, ax.expanded);
  s += '}';
  if (ax.rfactor) s += "rf";
  return s;
}

std::string domainToString(const Fusion& f, const std::vector<AxisId>& dom) {
  std::string s = "[";
  for (size_t i = 0; i < dom.size(); ++i) s += (i ? ", " : "") + axisToString(f, dom[i]);
  return s + "]";
}

std::string symbolToString(const Fusion& f, ScalarId s) {
  std::string_view n = f.scalarName(s);
  return n.empty() ? scalarToString(f, s) : std::string(n);
}

std::string tensorToString(const Fusion& f, TensorId t, PrintStyle style) {
  return Printer(f, style).tensor(t);
}

std::string exprToString(const Fusion& f, ExprId e, PrintStyle style) { return Printer(f, style).expr(e); }

std::string printFusionMath(const Fusion& f, PrintStyle style) {
  Printer p(f, style);
  std::string s = "Inputs:\n";
  auto line = [&](const ValueRef& v) {
    s += "  ";
    if (v.isTensor()) {
      s += p.tensor(v.id);
      if (style == PrintStyle::Y2024 && v.id < f.tensors.size())
        s += ", " + std::string(dtypeCppName(f.tensors[v.id].dtype));
    } else {
      s += scalarToString(f, v.id);
      if (style == PrintStyle::Y2024 && v.id < f.scalars.size())
        s += ", " + std::string(dtypeCppName(f.scalars[v.id].dtype));
    }
    s += '\n';
  };
  for (const ValueRef& v : f.inputs) line(v);
  s += "Outputs:\n";
  for (TensorId t : f.outputs) line(ValueRef::tensor(t));
  s += "\n%kernel_math {\n";
  for (ExprId e : p.order()) s += p.expr(e);
  s += style == PrintStyle::Head ? "} // %kernel_math \n\n" : "}\n\n";
  return s;
}

}  // namespace fc
