#include "ir/verifier_ops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/op_kind.h"
#include "ir/verifier_text.h"

namespace fc::verify {
namespace {

// ---------------------------------------------------------------- dtypes

int dtypeCategory(DType t) {
  if (t == DType::Bool) return 0;
  if (isIntegral(t)) return 1;
  return 2;
}

// Promotion of two dtypes of the same category, as torch does for tensors.
// nullopt: no single answer fusecheck can vouch for (then the check is
// skipped rather than guessed).
std::optional<DType> promoteSame(DType a, DType b) {
  if (a == b) return a;
  int ca = dtypeCategory(a);
  if (ca == 1) {
    if (a == DType::Index || b == DType::Index) return std::nullopt;
    return DType::Int;  // Int32 with Int
  }
  if (ca == 2) {
    auto rank = [](DType t) {
      switch (t) {
        case DType::Half:
        case DType::BFloat16: return 1;
        case DType::Float: return 2;
        case DType::Double: return 3;
        default: return -1;  // fp8: torch refuses to promote them
      }
    };
    int ra = rank(a), rb = rank(b);
    if (ra < 0 || rb < 0) return std::nullopt;
    if (ra == 1 && rb == 1) return DType::Float;  // Half with BFloat16
    return ra >= rb ? a : b;
  }
  return std::nullopt;
}

// torch-style result type of an elementwise op: tensors decide within their
// category; a scalar operand only matters when its category is higher.
std::optional<DType> promote(const std::vector<DType>& tensor_types, const std::vector<DType>& scalar_types) {
  if (tensor_types.empty()) return std::nullopt;
  int tcat = -1;
  for (DType t : tensor_types) tcat = std::max(tcat, dtypeCategory(t));
  std::optional<DType> r;
  for (DType t : tensor_types) {
    if (dtypeCategory(t) != tcat) continue;
    if (!r) {
      r = t;
    } else {
      r = promoteSame(*r, t);
      if (!r) return std::nullopt;
    }
  }
  int scat = -1;
  for (DType t : scalar_types) scat = std::max(scat, dtypeCategory(t));
  if (scat > tcat) {
    if (scat == 2) return std::nullopt;  // Float or Double, depending on the frontend
    return DType::Int;
  }
  return r;
}

bool isFloatUnary(OpKind k) {
  switch (k) {
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Reciprocal:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Erf: return true;
    default: return false;
  }
}

// ---------------------------------------------------------------- op rules

// The checks of one expr; the category's rules are written in
// checkElementwise, checkShapeOp, checkReduction, checkFactory and
// checkMatmul.
class OpChecks {
 public:
  OpChecks(const Fusion& f, std::span<const std::optional<int64_t>> constants)
      : f_(f), constants_(constants) {}

  void check(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    switch (opInfo(x.op).category) {
      case OpCategory::Set:
      case OpCategory::Cast:
      case OpCategory::Unary:
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::Ternary: checkElementwise(e, r); break;
      case OpCategory::Shape: checkShapeOp(e, r); break;
      case OpCategory::Reduction: checkReduction(e, r); break;
      case OpCategory::Factory: checkFactory(e, r); break;
      case OpCategory::Matmul: checkMatmul(e, r); break;
    }
  }

 private:
  const Fusion& f_;
  std::span<const std::optional<int64_t>> constants_;

  std::string tname(TensorId t) const { return tensorDesc(f_, t); }
  std::string exprDesc(ExprId e) const { return verify::exprDesc(f_, e); }
  std::string axisDesc(AxisId a) const { return verify::axisDesc(f_, a); }

  void noReductionAxes(ExprId e, TensorId out, Reporter& r) {
    const auto& lg = f_.tensors[out].logical;
    for (size_t j = 0; j < lg.size(); ++j)
      if (f_.axes[lg[j]].iter == IterType::Reduction) {
        r.error(DiagCode::IterTypeMismatch,
                std::string(opName(f_.exprs[e].op)) + " cannot produce the Reduction axis " +
                    axisDesc(lg[j]) + " of " + tname(out),
                logicalPtr(out, j))
            .note("produced by " + exprDesc(e), r.at(ep(e)));
        return;
      }
  }

  void dtypeError(ExprId e, TensorId out, DType want, const std::string& why, Reporter& r) {
    r.error(DiagCode::DTypeMismatch,
            tname(out) + " has dtype " + std::string(dtypeName(f_.tensors[out].dtype)) + " but " +
                exprDesc(e) + " produces " + std::string(dtypeName(want)) + " (" + why + ")",
            tp(out) + "/dtype");
  }

  void checkElementwise(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    noReductionAxes(e, out, r);
    const auto out_axes = noRed(out);
    // Ranks: every tensor operand has the output's non-Reduction rank.
    std::vector<size_t> bad;
    std::optional<size_t> common;
    bool all_same = true;
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      if (!x.inputs[k].isTensor()) continue;
      size_t r = f_.nonReductionRank(x.inputs[k].id);
      if (common && *common != r) all_same = false;
      if (!common) common = r;
      if (r != out_axes.size()) bad.push_back(k);
    }
    bool ranks_ok = bad.empty();
    if (!bad.empty()) {
      if (all_same && bad.size() > 1) {
        rankError(r,
                  tname(out) + " has rank " + num(out_axes.size()) + " but the operands of " + exprDesc(e) +
                      " have rank " + num(*common),
                  ep(e) + "/outputs/0");
      } else {
        for (size_t k : bad) {
          TensorId in = x.inputs[k].id;
          rankError(r,
                    "operand " + tname(in) + " of " + exprDesc(e) + " has rank " +
                        num(f_.nonReductionRank(in)) + " but the output " + tname(out) + " has rank " +
                        num(out_axes.size()),
                    ep(e) + "/inputs/" + num(k));
        }
      }
    }
    // Iter types: a Broadcast output axis needs Broadcast operands there.
    if (ranks_ok) {
      std::vector<std::vector<AxisId>> in_axes(x.inputs.size());
      for (size_t k = 0; k < x.inputs.size(); ++k)
        if (x.inputs[k].isTensor()) in_axes[k] = noRed(x.inputs[k].id);
      for (size_t j = 0; j < out_axes.size(); ++j) {
        if (f_.axes[out_axes[j]].iter != IterType::Broadcast) continue;
        for (size_t k = 0; k < x.inputs.size(); ++k) {
          if (!x.inputs[k].isTensor()) continue;
          AxisId ia = in_axes[k][j];
          if (f_.axes[ia].iter == IterType::Iteration) {
            r.error(DiagCode::IterTypeMismatch,
                    "axis " + axisDesc(out_axes[j]) + " of " + tname(out) + " is Broadcast but operand " +
                        tname(x.inputs[k].id) + " has the Iteration axis " + axisDesc(ia) + " there",
                    noRedPtr(out, j));
            break;
          }
        }
      }
    }
    // DTypes.
    std::vector<DType> tt, st;
    for (const ValueRef& v : x.inputs)
      (v.isTensor() ? tt : st).push_back(v.isTensor() ? f_.tensors[v.id].dtype : f_.scalars[v.id].dtype);
    const DType got = f_.tensors[out].dtype;
    const OpCategory cat = opInfo(x.op).category;
    if (cat == OpCategory::Set) {
      if (got != tt[0]) dtypeError(e, out, tt[0], "a copy keeps the dtype", r);
    } else if (cat == OpCategory::Cast) {
      if (!x.attrs.dtype)
        r.error(DiagCode::BadAttribute, exprDesc(e) + " has no target \"dtype\"", ep(e));
      else if (got != *x.attrs.dtype)
        r.error(DiagCode::DTypeMismatch,
                tname(out) + " has dtype " + std::string(dtypeName(got)) + " but " + exprDesc(e) +
                    " casts to " + std::string(dtypeName(*x.attrs.dtype)),
                tp(out) + "/dtype")
            .note("the cast's target dtype", r.at(ep(e) + "/dtype"));
    } else if (cat == OpCategory::Unary) {
      DType in = tt[0];
      if (x.op == OpKind::LogicalNot) {
        if (got != DType::Bool) dtypeError(e, out, DType::Bool, "logical ops produce Bool", r);
      } else if (isFloatUnary(x.op)) {
        if (isFloatingPoint(in) ? got != in : !isFloatingPoint(got))
          dtypeError(e, out, isFloatingPoint(in) ? in : DType::Float,
                     "floating-point math keeps a floating input's dtype and promotes others to Float", r);
      } else if (got != in) {
        dtypeError(e, out, in, "the op keeps its operand's dtype", r);
      }
    } else if (cat == OpCategory::Compare) {
      if (got != DType::Bool) dtypeError(e, out, DType::Bool, "comparisons and logical ops produce Bool", r);
    } else if (cat == OpCategory::Binary) {
      auto want = promote(tt, st);
      if (want && got != *want) dtypeError(e, out, *want, "the promoted dtype of its operands", r);
    } else if (cat == OpCategory::Ternary) {
      const ValueRef& c = x.inputs[0];
      DType cd = c.isTensor() ? f_.tensors[c.id].dtype : f_.scalars[c.id].dtype;
      if (cd != DType::Bool)
        r.error(DiagCode::DTypeMismatch,
                "the condition of " + exprDesc(e) + " has dtype " + std::string(dtypeName(cd)) + ", not Bool",
                ep(e) + "/inputs/0");
      std::vector<DType> t2, s2;
      for (size_t k = 1; k < x.inputs.size(); ++k) {
        const ValueRef& v = x.inputs[k];
        (v.isTensor() ? t2 : s2).push_back(v.isTensor() ? f_.tensors[v.id].dtype : f_.scalars[v.id].dtype);
      }
      auto want = t2.empty() ? std::nullopt : promote(t2, s2);
      if (want && got != *want) dtypeError(e, out, *want, "the promoted dtype of its value operands", r);
    }
  }

  // Normalizes an axis attribute against `rank` (negative counts from the
  // end, as torch). Returns -1 when out of range.
  static int64_t normDim(int64_t d, size_t rank) {
    int64_t r = static_cast<int64_t>(rank);
    if (d < -r || d >= r) return -1;
    return d < 0 ? d + r : d;
  }

  // Checks `dims` against `rank`; returns the normalized dims or nullopt.
  std::optional<std::vector<int64_t>> checkDims(ExprId e, size_t rank, const char* what, Reporter& r) {
    const auto& dims = f_.exprs[e].attrs.dims;
    std::vector<int64_t> out;
    std::vector<char> seen(rank, 0);
    bool ok = true;
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t d = normDim(dims[k], rank);
      auto ptr = [e, k] { return ep(e) + "/dims/" + num(k); };  // for a diagnostic only
      if (d < 0) {
        rankError(r,
                  std::string(what) + " dim " + std::to_string(dims[k]) + " of " + exprDesc(e) +
                      " is out of range for its rank-" + num(rank) + " input",
                  ptr());
        ok = false;
        continue;
      }
      if (seen[d]) {
        r.error(
            DiagCode::BadAttribute,
            std::string(what) + " dim " + std::to_string(dims[k]) + " of " + exprDesc(e) + " is listed twice",
            ptr());
        ok = false;
        continue;
      }
      seen[d] = 1;
      out.push_back(d);
    }
    if (!ok) return std::nullopt;
    return out;
  }

  void sameDType(ExprId e, TensorId in, TensorId out, Reporter& r) {
    if (f_.tensors[out].dtype != f_.tensors[in].dtype)
      dtypeError(e, out, f_.tensors[in].dtype, "the op keeps its input's dtype", r);
  }

  void outRank(ExprId e, TensorId out, size_t want, const std::string& why, Reporter& r) {
    size_t got = f_.tensors[out].logical.size();
    if (got != want)
      rankError(r,
                tname(out) + " has " + num(got) + " logical axes but " + exprDesc(e) + " produces " +
                    num(want) + " (" + why + ")",
                ep(e) + "/outputs/0");
  }

  void checkReduction(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId in = x.inputs[0].id;
    const size_t n = f_.nonReductionRank(in);
    const DType idt = f_.tensors[in].dtype;
    std::optional<std::vector<int64_t>> dims;
    if (x.attrs.dims.empty())
      r.error(DiagCode::BadAttribute, exprDesc(e) + " has no \"dims\" to reduce", ep(e));
    else
      dims = checkDims(e, n, "reduction", r);
    std::vector<char> reduced(n, 0);
    if (dims)
      for (int64_t d : *dims) reduced[d] = 1;
    for (size_t o = 0; o < x.outputs.size(); ++o) {
      TensorId out = x.outputs[o];
      const auto& lg = f_.tensors[out].logical;
      if (lg.size() != n) {
        rankError(
            r,
            tname(out) + " has " + num(lg.size()) + " logical axes but " + exprDesc(e) + " of a rank-" +
                num(n) + " input keeps all " + num(n) +
                (x.attrs.keepdim ? " (reduced ones as Broadcast axes)" : " (reduced ones as Reduction axes)"),
            ep(e) + "/outputs/" + num(o));
      } else if (dims) {
        for (size_t j = 0; j < n; ++j) {
          IterType it = f_.axes[lg[j]].iter;
          if (reduced[j]) {
            IterType want = x.attrs.keepdim ? IterType::Broadcast : IterType::Reduction;
            if (it != want) {
              r.error(DiagCode::IterTypeMismatch,
                      "axis " + axisDesc(lg[j]) + " of " + tname(out) + " is reduced by " + exprDesc(e) +
                          " and must be " + std::string(iterTypeName(want)),
                      logicalPtr(out, j));
            }
          } else if (it == IterType::Reduction) {
            r.error(DiagCode::IterTypeMismatch,
                    "axis " + axisDesc(lg[j]) + " of " + tname(out) + " is not in the dims of " +
                        exprDesc(e) + " but is a Reduction axis",
                    logicalPtr(out, j));
          }
        }
      }
      // DTypes: reductions keep the dtype unless "dtype" says otherwise;
      // sum / prod of Bool or integers accumulate in Int (as nvFuser).
      DType got = f_.tensors[out].dtype;
      if (x.attrs.dtype) {
        if (got != *x.attrs.dtype) dtypeError(e, out, *x.attrs.dtype, "its \"dtype\" attribute", r);
      } else if ((x.op == OpKind::Sum || x.op == OpKind::Prod) && !isFloatingPoint(idt)) {
        if (got != DType::Int && got != idt)
          dtypeError(e, out, DType::Int, "integer sums accumulate in Int", r);
      } else if ((x.op == OpKind::Mean || x.op == OpKind::Var || x.op == OpKind::VarMean) &&
                 !isFloatingPoint(idt)) {
        if (!isFloatingPoint(got))
          dtypeError(e, out, DType::Float, "the mean or variance of integers is floating-point", r);
      } else if (got != idt) {
        dtypeError(e, out, idt, "reductions keep their input's dtype", r);
      }
    }
  }

  void checkShapeOp(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId in = x.inputs[0].id;
    TensorId out = x.outputs[0];
    const size_t n = f_.nonReductionRank(in);
    const auto& olg = f_.tensors[out].logical;
    const std::string p = ep(e);
    if (x.op != OpKind::Cat) sameDType(e, in, out, r);
    noReductionAxes(e, out, r);
    switch (x.op) {
      case OpKind::Broadcast: {
        const auto& fl = x.attrs.flags;
        size_t nfalse = static_cast<size_t>(std::count(fl.begin(), fl.end(), false));
        if (fl.size() != olg.size()) {
          rankError(r,
                    exprDesc(e) + " has " + num(fl.size()) + " flags but its output " + tname(out) + " has " +
                        num(olg.size()) + " logical axes",
                    p + "/flags");
        } else if (nfalse != n) {
          rankError(r,
                    exprDesc(e) + " keeps " + num(nfalse) + " axes (false flags) but its input " + tname(in) +
                        " has rank " + num(n),
                    p + "/flags");
        } else {
          for (size_t j = 0; j < fl.size(); ++j)
            if (fl[j] && f_.axes[olg[j]].iter != IterType::Broadcast)
              r.error(DiagCode::IterTypeMismatch,
                      "axis " + axisDesc(olg[j]) + " of " + tname(out) +
                          " has a true broadcast flag but is " +
                          std::string(iterTypeName(f_.axes[olg[j]].iter)),
                      logicalPtr(out, j))
                  .note("the flag", r.at(p + "/flags/" + num(j)));
        }
        break;
      }
      case OpKind::BroadcastInDim: {
        const auto& dims = x.attrs.dims;
        if (x.attrs.shape.size() != olg.size())
          rankError(r,
                    exprDesc(e) + " has a shape of " + num(x.attrs.shape.size()) + " sizes but its output " +
                        tname(out) + " has " + num(olg.size()) + " logical axes",
                    p + "/shape");
        if (dims.size() != n) {
          rankError(r,
                    exprDesc(e) + " maps " + num(dims.size()) + " input axes but its input " + tname(in) +
                        " has rank " + num(n),
                    p + "/dims");
          break;
        }
        std::vector<char> mapped(olg.size(), 0);
        int64_t prev = -1;
        bool ok = true;
        for (size_t k = 0; k < dims.size(); ++k) {
          if (dims[k] <= prev || dims[k] >= static_cast<int64_t>(olg.size())) {
            rankError(r,
                      "broadcast_in_dim dim " + std::to_string(dims[k]) +
                          " must be increasing and below the output rank " + num(olg.size()),
                      p + "/dims/" + num(k));
            ok = false;
            break;
          }
          prev = dims[k];
          mapped[dims[k]] = 1;
        }
        if (ok)
          for (size_t j = 0; j < olg.size(); ++j)
            if (!mapped[j] && f_.axes[olg[j]].iter != IterType::Broadcast)
              r.error(DiagCode::IterTypeMismatch,
                      "axis " + axisDesc(olg[j]) + " of " + tname(out) +
                          " is not mapped from the input and must be Broadcast",
                      logicalPtr(out, j));
        break;
      }
      case OpKind::Expand:
        if (x.attrs.shape.size() != n)
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.shape.size()) + " sizes but its input " + tname(in) +
                        " has rank " + num(n),
                    p + "/shape");
        else
          outRank(e, out, n, "expand keeps the rank", r);
        break;
      case OpKind::Squeeze: {
        auto dims = checkDims(e, n, "squeeze", r);
        if (!dims) break;
        const auto inr = noRed(in);
        for (size_t k = 0; k < dims->size(); ++k) {
          AxisId a = inr[(*dims)[k]];
          ScalarId ext = f_.axes[a].extent;
          if (f_.axes[a].iter != IterType::Broadcast && ext < f_.scalars.size() && constants_[ext] &&
              *constants_[ext] != 1)
            r.error(DiagCode::ExtentMismatch,
                    exprDesc(e) + " squeezes axis " + axisDesc(a) + " of extent " +
                        std::to_string(*constants_[ext]) + "; only extent-1 axes can be squeezed",
                    p + "/dims/" + num(k));
        }
        outRank(e, out, n - dims->size(), "squeeze removes one axis per dim", r);
        break;
      }
      case OpKind::Permute: {
        const auto& dims = x.attrs.dims;
        bool ok = true;
        if (dims.size() != n) {
          rankError(r,
                    exprDesc(e) + " has " + num(dims.size()) + " dims but its input " + tname(in) +
                        " has rank " + num(n),
                    p + "/dims");
          ok = false;
        } else {
          std::vector<char> seen(n, 0);
          for (size_t k = 0; k < n && ok; ++k) {
            int64_t d = normDim(dims[k], n);
            if (d < 0 || seen[d]) {
              rankError(r,
                        "the dims of " + exprDesc(e) + " are not a permutation of 0.." +
                            std::to_string(n - 1) + " (" + std::to_string(dims[k]) +
                            (d < 0 ? " is out of range)" : " repeats)"),
                        p + "/dims/" + num(k));
              ok = false;
            } else {
              seen[d] = 1;
            }
          }
        }
        if (!ok) break;
        outRank(e, out, n, "permute keeps the rank", r);
        const auto& root = f_.tensors[out].root;
        if (root.size() == n && olg.size() == n) {
          for (size_t j = 0; j < n; ++j) {
            AxisId want = root[normDim(dims[j], n)];
            if (olg[j] != want) {
              rankError(r,
                        "logical axis " + num(j) + " of " + tname(out) + " should be root axis " +
                            std::to_string(normDim(dims[j], n)) + " (" + axisDesc(want) +
                            ") under the dims of " + exprDesc(e),
                        logicalPtr(out, j));
              break;
            }
          }
        } else if (!root.empty() && root.size() != n) {
          rankError(r,
                    "the root of " + tname(out) + " has " + num(root.size()) + " axes but its input " +
                        tname(in) + " has rank " + num(n),
                    tp(out) + "/root");
        }
        break;
      }
      case OpKind::Reshape: {
        if (x.attrs.shape.size() != olg.size())
          rankError(r,
                    exprDesc(e) + " has a shape of " + num(x.attrs.shape.size()) + " sizes but its output " +
                        tname(out) + " has " + num(olg.size()) + " logical axes",
                    p + "/shape");
        const auto& root = f_.tensors[out].root;
        if (!root.empty() && root.size() != n)
          rankError(r,
                    "the root of " + tname(out) + " has " + num(root.size()) + " axes but its input " +
                        tname(in) + " has rank " + num(n),
                    tp(out) + "/root");
        break;
      }
      case OpKind::Slice:
        // Ranges apply to the leading input axes; axes without one are kept whole.
        if (x.attrs.ranges.size() > n)
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.ranges.size()) + " ranges but its input " +
                        tname(in) + " has rank " + num(n),
                    p + "/ranges/" + num(n));
        else
          outRank(e, out, n, "slice keeps the rank", r);
        break;
      case OpKind::Pad:
        if (x.attrs.pad.size() % 2 != 0 || x.attrs.pad.size() > 2 * n)
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.pad.size()) + " pad widths; a rank-" + num(n) +
                        " input takes an even number up to " + num(2 * n),
                    p + "/pad");
        else
          outRank(e, out, n, "pad keeps the rank", r);
        break;
      case OpKind::Cat: {
        bool ok = true;
        std::vector<DType> tt;
        for (size_t k = 0; k < x.inputs.size(); ++k) {
          TensorId t = x.inputs[k].id;
          tt.push_back(f_.tensors[t].dtype);
          if (f_.nonReductionRank(t) != n) {
            rankError(r,
                      "operand " + tname(t) + " of " + exprDesc(e) + " has rank " +
                          num(f_.nonReductionRank(t)) + " but " + tname(in) + " has rank " + num(n),
                      p + "/inputs/" + num(k));
            ok = false;
          }
        }
        if (!ok) break;
        if (normDim(x.attrs.dim, n) < 0)
          rankError(r, "cat dim " + std::to_string(x.attrs.dim) + " is out of range for rank " + num(n),
                    p + "/dim");
        outRank(e, out, n, "cat keeps the rank", r);
        auto want = promote(tt, {});
        if (want && f_.tensors[out].dtype != *want)
          dtypeError(e, out, *want, "the promoted dtype of its operands", r);
        break;
      }
      default: break;
    }
  }

  void checkFactory(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    noReductionAxes(e, out, r);
    size_t want = x.attrs.shape.size();
    if (f_.tensors[out].logical.size() != want)
      rankError(r,
                tname(out) + " has " + num(f_.tensors[out].logical.size()) +
                    " logical axes but the shape of " + exprDesc(e) + " has " + num(want) + " sizes",
                ep(e) + "/shape");
    if (x.attrs.dtype && f_.tensors[out].dtype != *x.attrs.dtype)
      dtypeError(e, out, *x.attrs.dtype, "its \"dtype\" attribute", r);
  }

  void checkMatmul(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    TensorId a = x.inputs[0].id, b = x.inputs[1].id;
    const size_t ra = f_.nonReductionRank(a), rb = f_.nonReductionRank(b);
    const std::string p = ep(e);
    std::optional<size_t> want;
    if (x.op == OpKind::Matmul) {
      if (ra == 0 || rb == 0) {
        rankError(r, "matmul operands must have rank 1 or more", p + "/inputs/" + (ra == 0 ? "0" : "1"));
      } else {
        want = (ra == 1 && rb == 1) ? 0 : ra == 1 ? rb - 1 : rb == 1 ? ra - 1 : std::max(ra, rb);
      }
    } else {
      if (ra == 0) rankError(r, "the input of linear must have rank 1 or more", p + "/inputs/0");
      if (rb != 1 && rb != 2)
        rankError(r, "the weight of linear must have rank 1 or 2, not " + num(rb), p + "/inputs/1");
      if (x.inputs.size() == 3 && f_.nonReductionRank(x.inputs[2].id) > 1)
        rankError(r, "the bias of linear must have rank 0 or 1", p + "/inputs/2");
      if (ra > 0 && (rb == 1 || rb == 2)) want = ra - 1 + (rb == 2 ? 1 : 0);
    }
    const auto& lg = f_.tensors[out].logical;
    if (want && f_.nonReductionRank(out) != *want)
      rankError(r,
                tname(out) + " has " + num(f_.nonReductionRank(out)) + " non-Reduction axes but " +
                    exprDesc(e) + " of ranks " + num(ra) + " and " + num(rb) + " produces " + num(*want),
                p + "/outputs/0");
    // At most one Reduction axis (the contracted K), last in the logical domain.
    for (size_t j = 0; j < lg.size(); ++j)
      if (f_.axes[lg[j]].iter == IterType::Reduction && j + 1 != lg.size()) {
        r.error(DiagCode::IterTypeMismatch,
                "the Reduction axis " + axisDesc(lg[j]) + " of " + tname(out) +
                    " must be the last logical axis (" + std::string(opName(x.op)) + " reduces only K)",
                logicalPtr(out, j));
        break;
      }
    DType da = f_.tensors[a].dtype;
    for (size_t k = 1; k < x.inputs.size(); ++k) {
      DType d = f_.tensors[x.inputs[k].id].dtype;
      if (d != da)
        r.error(DiagCode::DTypeMismatch,
                "operand " + tname(x.inputs[k].id) + " of " + exprDesc(e) + " has dtype " +
                    std::string(dtypeName(d)) + " but " + tname(a) + " has " + std::string(dtypeName(da)),
                p + "/inputs/" + num(k));
    }
    if (f_.tensors[out].dtype != da) dtypeError(e, out, da, "the dtype of its operands", r);
  }

  static void rankError(Reporter& r, const std::string& msg, const std::string& ptr) {
    r.error(DiagCode::RankMismatch, msg, ptr);
  }

  std::vector<AxisId> noRed(TensorId t) const {
    std::vector<AxisId> r;
    for (AxisId a : f_.tensors[t].logical)
      if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
    return r;
  }
  // Pointer of the j-th non-Reduction logical axis of t.
  std::string noRedPtr(TensorId t, size_t j) const {
    const auto& lg = f_.tensors[t].logical;
    size_t k = 0;
    for (size_t i = 0; i < lg.size(); ++i) {
      if (f_.axes[lg[i]].iter == IterType::Reduction) continue;
      if (k++ == j) return logicalPtr(t, i);
    }
    return tp(t) + "/logical";
  }
};

}  // namespace

void checkOp(const Fusion& f, ExprId e, std::span<const std::optional<int64_t>> constants, Reporter& r) {
  OpChecks(f, constants).check(e, r);
}

}  // namespace fc::verify
