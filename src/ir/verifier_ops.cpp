#include "ir/verifier_ops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/op_kind.h"
#include "ir/op_rules.h"
#include "ir/verifier_text.h"

namespace fc::verify {
namespace {

// The scalar checks' folded constants, as the op rules read them.
class FoldedConstants final : public KnownValues {
 public:
  explicit FoldedConstants(std::span<const std::optional<int64_t>> c) : c_(c) {}
  std::optional<int64_t> intValue(ScalarId s) const override { return s < c_.size() ? c_[s] : std::nullopt; }

 private:
  std::span<const std::optional<int64_t>> c_;
};

bool allows(const AxisRule& r, IterType t) { return (r.allowed & iterBit(t)) != 0; }

// The checks of one expr against the rules of its op (ir/op_rules.h): the
// operands and attributes the rule finds wrong, the output's rank and iter
// types against the rule's axes, and its dtype against nvFuser's type
// promotion. The wording names the IR as the user wrote it; the facts come
// from the rule.
class OpChecks {
 public:
  OpChecks(const Fusion& f, std::span<const std::optional<int64_t>> constants, ShapeRule& rule)
      : f_(f), constants_(constants), rule_(rule) {}

  void check(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    if (isOpaque(x.op)) return;  // no rule to check it against: references and counts only
    outputShape(f_, x, FoldedConstants(constants_), RuleMode::Check, rule_);
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
      case OpCategory::Opaque: break;
    }
  }

 private:
  const Fusion& f_;
  std::span<const std::optional<int64_t>> constants_;
  ShapeRule& rule_;

  std::string tname(TensorId t) const { return tensorDesc(f_, t); }
  std::string exprDesc(ExprId e) const { return verify::exprDesc(f_, e); }
  std::string axisDesc(AxisId a) const { return verify::axisDesc(f_, a); }
  static void rankError(Reporter& r, const std::string& msg, const Place& where) {
    r.error(DiagCode::RankMismatch, msg, where);
  }

  // The rule's issues of `kind`, in order.
  std::vector<ShapeIssue> issues(ShapeIssue::Kind kind) const {
    std::vector<ShapeIssue> out;
    for (const ShapeIssue& is : rule_.issues)
      if (is.kind == kind) out.push_back(is);
    return out;
  }
  bool has(ShapeIssue::Kind kind) const {
    return std::any_of(rule_.issues.begin(), rule_.issues.end(),
                       [&](const ShapeIssue& is) { return is.kind == kind; });
  }

  void noReductionAxes(ExprId e, TensorId out, Reporter& r) {
    const auto& lg = f_.tensors[out].logical;
    for (size_t j = 0; j < lg.size(); ++j)
      if (f_.axes[lg[j]].iter == IterType::Reduction) {
        r.error(DiagCode::IterTypeMismatch,
                std::string(opName(f_.exprs[e].op)) + " cannot produce the Reduction axis " +
                    axisDesc(lg[j]) + " of " + tname(out),
                logicalPlace(out, j))
            .note("produced by " + exprDesc(e), r.at(ep(e)));
        return;
      }
  }

  void dtypeError(ExprId e, TensorId out, DType want, const std::string& why, Reporter& r) {
    r.error(DiagCode::DTypeMismatch,
            tname(out) + " has dtype " + std::string(dtypeName(f_.tensors[out].dtype)) + " but " +
                exprDesc(e) + " produces " + std::string(dtypeName(want)) + " (" + why + ")",
            tp(out).key(F::Dtype));
  }

  // Output `o` against the op's dtype rule.
  void checkDType(ExprId e, size_t o, Reporter& r) {
    const DTypeRule want = outputDType(f_, f_.exprs[e], o);
    TensorId out = f_.exprs[e].outputs[o];
    if (want.dtype && f_.tensors[out].dtype != *want.dtype) dtypeError(e, out, *want.dtype, want.why, r);
  }

  void outRank(ExprId e, TensorId out, size_t want, const std::string& why, Reporter& r) {
    size_t got = f_.tensors[out].logical.size();
    if (got != want)
      rankError(r,
                tname(out) + " has " + num(got) + " logical axes but " + exprDesc(e) + " produces " +
                    num(want) + " (" + why + ")",
                ep(e).at(F::Outputs, 0));
  }

  // Reports the dims the rule found out of range or repeated; true when none.
  bool dimsOk(ExprId e, const char* what, Reporter& r) {
    bool ok = true;
    for (const ShapeIssue& is : rule_.issues) {
      auto ptr = [&] { return ep(e).at(F::Dims, is.index); };
      if (is.kind == ShapeIssue::Kind::DimOutOfRange) {
        rankError(r,
                  std::string(what) + " dim " + std::to_string(is.a) + " of " + exprDesc(e) +
                      " is out of range for its rank-" + num(static_cast<size_t>(is.b)) + " input",
                  ptr());
        ok = false;
      } else if (is.kind == ShapeIssue::Kind::DimRepeated) {
        r.error(
            DiagCode::BadAttribute,
            std::string(what) + " dim " + std::to_string(is.a) + " of " + exprDesc(e) + " is listed twice",
            ptr());
        ok = false;
      }
    }
    return ok;
  }

  void checkElementwise(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    noReductionAxes(e, out, r);
    const auto out_axes = noRed(out);
    // Ranks: the rule gives every tensor operand the output's rank.
    std::vector<size_t> bad, tensors;
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      if (!x.inputs[k].isTensor()) continue;
      tensors.push_back(k);
      if (f_.nonReductionRank(x.inputs[k].id) != out_axes.size()) bad.push_back(k);
    }
    const bool operands_agree = !has(ShapeIssue::Kind::RankMismatch);
    if (!bad.empty()) {
      if (operands_agree && bad.size() > 1) {
        rankError(r,
                  tname(out) + " has rank " + num(out_axes.size()) + " but the operands of " + exprDesc(e) +
                      " have rank " + num(rule_.axes.size()),
                  ep(e).at(F::Outputs, 0));
      } else {
        for (size_t k : bad) {
          TensorId in = x.inputs[k].id;
          rankError(r,
                    "operand " + tname(in) + " of " + exprDesc(e) + " has rank " +
                        num(f_.nonReductionRank(in)) + " but the output " + tname(out) + " has rank " +
                        num(out_axes.size()),
                    ep(e).at(F::Inputs, k));
        }
      }
    } else if (rule_.ok()) {
      // Iter types: a Broadcast output axis where the rule has an Iteration operand.
      for (size_t j = 0; j < out_axes.size(); ++j) {
        if (f_.axes[out_axes[j]].iter != IterType::Broadcast || allows(rule_.axes[j], IterType::Broadcast))
          continue;
        for (size_t k : tensors) {
          AxisId ia = noRed(x.inputs[k].id)[j];
          if (f_.axes[ia].iter == IterType::Iteration) {
            r.error(DiagCode::IterTypeMismatch,
                    "axis " + axisDesc(out_axes[j]) + " of " + tname(out) + " is Broadcast but operand " +
                        tname(x.inputs[k].id) + " has the Iteration axis " + axisDesc(ia) + " there",
                    noRedPlace(out, j));
            break;
          }
        }
      }
    }
    // DTypes.
    switch (opInfo(x.op).category) {
      case OpCategory::Cast:
        if (!x.attrs.dtype)
          r.error(DiagCode::BadAttribute, exprDesc(e) + " has no target \"dtype\"", ep(e));
        else if (f_.tensors[out].dtype != *x.attrs.dtype)
          r.error(DiagCode::DTypeMismatch,
                  tname(out) + " has dtype " + std::string(dtypeName(f_.tensors[out].dtype)) + " but " +
                      exprDesc(e) + " casts to " + std::string(dtypeName(*x.attrs.dtype)),
                  tp(out).key(F::Dtype))
              .note("the cast's target dtype", r.at(ep(e).key(F::Dtype)));
        return;
      case OpCategory::Ternary: {
        const ValueRef& c = x.inputs[0];
        DType cd = c.isTensor() ? f_.tensors[c.id].dtype : f_.scalars[c.id].dtype;
        if (x.op == OpKind::Where && cd != DType::Bool)  // clamp, threshold, lerp: any input
          r.error(
              DiagCode::DTypeMismatch,
              "the condition of " + exprDesc(e) + " has dtype " + std::string(dtypeName(cd)) + ", not Bool",
              ep(e).at(F::Inputs, 0));
        break;
      }
      default: break;
    }
    checkDType(e, 0, r);
  }

  void checkShapeOp(ExprId e, Reporter& r) {
    using K = ShapeIssue::Kind;
    const Expr& x = f_.exprs[e];
    const OpForm form = opInfo(x.op).form;
    TensorId in = x.inputs[0].id;
    TensorId out = x.outputs[0];
    const size_t n = f_.nonReductionRank(in);
    const auto& olg = f_.tensors[out].logical;
    const Place p = ep(e);
    if (form != OpForm::Cat) checkDType(e, 0, r);
    noReductionAxes(e, out, r);
    switch (form) {
      case OpForm::Broadcast: {
        const auto& fl = x.attrs.flags;
        if (fl.size() != olg.size()) {
          rankError(r,
                    exprDesc(e) + " has " + num(fl.size()) + " flags but its output " + tname(out) + " has " +
                        num(olg.size()) + " logical axes",
                    p.key(F::Flags));
        } else if (has(K::FlagsKept)) {
          rankError(r,
                    exprDesc(e) + " keeps " + std::to_string(issues(K::FlagsKept)[0].a) +
                        " axes (false flags) but its input " + tname(in) + " has rank " + num(n),
                    p.key(F::Flags));
        } else {
          // A true flag's axis is a new Broadcast axis (AxisRule::Extent::One).
          for (size_t j = 0; j < olg.size(); ++j)
            if (rule_.axes[j].extent == AxisRule::Extent::One && !allows(rule_.axes[j], f_.axes[olg[j]].iter))
              r.error(DiagCode::IterTypeMismatch,
                      "axis " + axisDesc(olg[j]) + " of " + tname(out) +
                          " has a true broadcast flag but is " +
                          std::string(iterTypeName(f_.axes[olg[j]].iter)),
                      logicalPlace(out, j))
                  .note("the flag", r.at(p.at(F::Flags, j)));
        }
        break;
      }
      case OpForm::BroadcastInDim: {
        if (x.attrs.shape.size() != olg.size())
          rankError(r,
                    exprDesc(e) + " has a shape of " + num(x.attrs.shape.size()) + " sizes but its output " +
                        tname(out) + " has " + num(olg.size()) + " logical axes",
                    p.key(F::Shape));
        if (has(K::BidDimsCount)) {
          rankError(r,
                    exprDesc(e) + " maps " + num(x.attrs.dims.size()) + " input axes but its input " +
                        tname(in) + " has rank " + num(n),
                    p.key(F::Dims));
        } else if (has(K::BidDimsOrder)) {
          const ShapeIssue is = issues(K::BidDimsOrder)[0];
          rankError(r,
                    "broadcast_in_dim dim " + std::to_string(is.a) +
                        " must be increasing and below the output rank " + std::to_string(is.b),
                    p.at(F::Dims, is.index));
        } else {
          // An axis no input axis maps to is a new Broadcast axis.
          for (size_t j = 0; j < olg.size() && j < rule_.axes.size(); ++j)
            if (rule_.axes[j].from_count == 0 && !allows(rule_.axes[j], f_.axes[olg[j]].iter))
              r.error(DiagCode::IterTypeMismatch,
                      "axis " + axisDesc(olg[j]) + " of " + tname(out) +
                          " is not mapped from the input and must be Broadcast",
                      logicalPlace(out, j));
        }
        break;
      }
      case OpForm::Expand:
        if (has(K::ShapeCount))
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.shape.size()) + " sizes but its input " + tname(in) +
                        " has rank " + num(n),
                    p.key(F::Shape));
        else
          outRank(e, out, rule_.axes.size(), "expand keeps the rank", r);
        break;
      case OpForm::Squeeze: {
        if (!dimsOk(e, "squeeze", r)) break;
        for (const ShapeIssue& is : issues(K::SqueezeNotOne)) {
          AxisId a = noRed(in)[static_cast<size_t>(normalizeDim(x.attrs.dims[is.index], n))];
          r.error(DiagCode::ExtentMismatch,
                  exprDesc(e) + " squeezes axis " + axisDesc(a) + " of extent " + std::to_string(is.a) +
                      "; only extent-1 axes can be squeezed",
                  p.at(F::Dims, is.index));
        }
        outRank(e, out, rule_.axes.size(), "squeeze removes one axis per dim", r);
        break;
      }
      case OpForm::Permute: {
        if (has(K::PermuteCount)) {
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.dims.size()) + " dims but its input " + tname(in) +
                        " has rank " + num(n),
                    p.key(F::Dims));
          break;
        }
        if (has(K::NotAPermutation)) {
          const ShapeIssue is = issues(K::NotAPermutation)[0];
          rankError(r,
                    "the dims of " + exprDesc(e) + " are not a permutation of 0.." + std::to_string(n - 1) +
                        " (" + std::to_string(is.a) + (is.b == 0 ? " is out of range)" : " repeats)"),
                    p.at(F::Dims, is.index));
          break;
        }
        outRank(e, out, n, "permute keeps the rank", r);
        const auto& root = f_.tensors[out].root;
        if (root.size() == n && olg.size() == n) {
          for (size_t j = 0; j < n; ++j) {
            const auto d = static_cast<size_t>(rule_.perm[j]);
            if (olg[j] != root[d]) {
              rankError(r,
                        "logical axis " + num(j) + " of " + tname(out) + " should be root axis " + num(d) +
                            " (" + axisDesc(root[d]) + ") under the dims of " + exprDesc(e),
                        logicalPlace(out, j));
              break;
            }
          }
        } else if (!root.empty() && root.size() != n) {
          rootError(in, out, root.size(), n, r);
        }
        break;
      }
      case OpForm::Reshape: {
        if (x.attrs.shape.size() != olg.size())
          rankError(r,
                    exprDesc(e) + " has a shape of " + num(x.attrs.shape.size()) + " sizes but its output " +
                        tname(out) + " has " + num(olg.size()) + " logical axes",
                    p.key(F::Shape));
        for (const ShapeIssue& is : rule_.issues)
          r.error(DiagCode::BadAttribute, exprDesc(e) + ": " + describeIssue(x.op, is, x.attrs),
                  p.at(F::Shape, is.index));
        const auto& root = f_.tensors[out].root;
        if (!root.empty() && root.size() != n) rootError(in, out, root.size(), n, r);
        break;
      }
      case OpForm::Slice:
        if (has(K::SliceRanges))
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.ranges.size()) + " ranges but its input " +
                        tname(in) + " has rank " + num(n),
                    p.at(F::Ranges, n));
        else
          outRank(e, out, rule_.axes.size(), "slice keeps the rank", r);
        break;
      case OpForm::Pad:
        if (has(K::PadWidths))
          rankError(r,
                    exprDesc(e) + " has " + num(x.attrs.pad.size()) + " pad widths; a rank-" + num(n) +
                        " input takes an even number up to " + num(2 * n),
                    p.key(F::Pad));
        else
          outRank(e, out, rule_.axes.size(), "pad keeps the rank", r);
        break;
      case OpForm::Cat: {
        if (has(K::CatRank)) {
          for (const ShapeIssue& is : issues(K::CatRank)) {
            TensorId t = x.inputs[is.index].id;
            rankError(r,
                      "operand " + tname(t) + " of " + exprDesc(e) + " has rank " + std::to_string(is.a) +
                          " but " + tname(in) + " has rank " + num(n),
                      p.at(F::Inputs, is.index));
          }
          break;
        }
        if (has(K::CatDim))
          rankError(r, "cat dim " + std::to_string(x.attrs.dim) + " is out of range for rank " + num(n),
                    p.key(F::Dim));
        outRank(e, out, n, "cat keeps the rank", r);
        // nvFuser's cat takes operands of one dtype and promotes none (csrc/ops/alias.cpp:655-660 @
        // 81c4b22fd; the same check since cat was added, #3).
        for (size_t i = 1; i < x.inputs.size(); ++i) {
          if (!x.inputs[i].isTensor()) continue;
          const TensorId t = x.inputs[i].id;
          if (f_.tensors[t].dtype == f_.tensors[in].dtype) continue;
          r.error(DiagCode::DTypeMismatch,
                  "operand " + tname(t) + " of " + exprDesc(e) + " has dtype " +
                      std::string(dtypeName(f_.tensors[t].dtype)) + " but " + tname(in) + " has " +
                      std::string(dtypeName(f_.tensors[in].dtype)) +
                      ": nvFuser's cat refuses operands of different dtypes (\"Can't concatenate tensors "
                      "with different data types\")",
                  p.at(F::Inputs, i));
          return;
        }
        checkDType(e, 0, r);
        break;
      }
      default: break;
    }
  }

  void rootError(TensorId in, TensorId out, size_t got, size_t n, Reporter& r) {
    rankError(r,
              "the root of " + tname(out) + " has " + num(got) + " axes but its input " + tname(in) +
                  " has rank " + num(n),
              tp(out).key(F::Root));
  }

  void checkReduction(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId in = x.inputs[0].id;
    const size_t n = f_.nonReductionRank(in);
    bool dims_ok = false;
    if (has(ShapeIssue::Kind::NoDims))
      r.error(DiagCode::BadAttribute, exprDesc(e) + " has no \"dims\" to reduce", ep(e));
    else
      dims_ok = dimsOk(e, "reduction", r);
    for (size_t o = 0; o < x.outputs.size(); ++o) {
      TensorId out = x.outputs[o];
      const auto& lg = f_.tensors[out].logical;
      if (lg.size() != n) {
        rankError(
            r,
            tname(out) + " has " + num(lg.size()) + " logical axes but " + exprDesc(e) + " of a rank-" +
                num(n) + " input keeps all " + num(n) +
                (x.attrs.keepdim ? " (reduced ones as Broadcast axes)" : " (reduced ones as Reduction axes)"),
            ep(e).at(F::Outputs, o));
      } else if (dims_ok) {
        for (size_t j = 0; j < n; ++j) {
          const AxisRule& ar = rule_.axes[j];
          IterType it = f_.axes[lg[j]].iter;
          if (allows(ar, it)) continue;
          if (ar.extent == AxisRule::Extent::Reduced || ar.extent == AxisRule::Extent::One)
            r.error(DiagCode::IterTypeMismatch,
                    "axis " + axisDesc(lg[j]) + " of " + tname(out) + " is reduced by " + exprDesc(e) +
                        " and must be " + std::string(iterTypeName(ar.make)),
                    logicalPlace(out, j));
          else
            r.error(DiagCode::IterTypeMismatch,
                    "axis " + axisDesc(lg[j]) + " of " + tname(out) + " is not in the dims of " +
                        exprDesc(e) + " but is a Reduction axis",
                    logicalPlace(out, j));
        }
      }
      checkDType(e, o, r);
    }
  }

  void checkFactory(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    noReductionAxes(e, out, r);
    for (const ShapeIssue& is : rule_.issues)
      r.error(DiagCode::BadAttribute, exprDesc(e) + ": " + describeIssue(x.op, is, x.attrs),
              is.kind == ShapeIssue::Kind::NegativeSize        ? ep(e).at(F::Shape, is.index)
              : is.kind == ShapeIssue::Kind::LikeBroadcastSize ? ep(e).at(F::Flags, is.index)
              : is.kind == ShapeIssue::Kind::LikeFlagsCount    ? ep(e).key(F::Flags)
                                                               : ep(e));
    size_t want = rule_.axes.size();
    if (f_.tensors[out].logical.size() != want)
      rankError(r,
                tname(out) + " has " + num(f_.tensors[out].logical.size()) +
                    " logical axes but the shape of " + exprDesc(e) + " has " + num(want) + " sizes",
                ep(e).key(F::Shape));
    // A factory shaped like a tensor (rand_like) carries its IterTypes over.
    if (!x.attrs.flags.empty() && rule_.ok() && f_.tensors[out].logical.size() == want)
      for (size_t j = 0; j < want; ++j)
        if (AxisId a = f_.tensors[out].logical[j]; !allows(rule_.axes[j], f_.axes[a].iter))
          r.error(DiagCode::IterTypeMismatch,
                  "axis " + axisDesc(a) + " of " + tname(out) + " is " +
                      std::string(iterTypeName(f_.axes[a].iter)) + " but flags[" + num(j) + "] of " +
                      exprDesc(e) + " says " + (x.attrs.flags[j] ? "Broadcast" : "Iteration"),
                  ep(e).at(F::Flags, j));
    // A factory without a "dtype" attribute takes its output's.
    if (x.attrs.dtype) checkDType(e, 0, r);
  }

  void checkMatmul(ExprId e, Reporter& r) {
    using K = ShapeIssue::Kind;
    const Expr& x = f_.exprs[e];
    TensorId out = x.outputs[0];
    TensorId a = x.inputs[0].id;
    const Place p = ep(e);
    const bool linear = opInfo(x.op).form == OpForm::Linear;
    for (const ShapeIssue& is : rule_.issues) {
      if (is.kind == K::MatmulRankZero)
        rankError(r,
                  linear ? "the input of linear must have rank 1 or more"
                         : "matmul operands must have rank 1 or more",
                  p.at(F::Inputs, is.index));
      else if (is.kind == K::LinearWeightRank)
        rankError(r, "the weight of linear must have rank 1 or more, not " + std::to_string(is.a),
                  p.at(F::Inputs, 1));
      else if (is.kind == K::LinearBiasRank)
        rankError(
            r, "the bias of linear must have rank 0, 1 or the weight's rank - 1, not " + std::to_string(is.a),
            p.at(F::Inputs, 2));
    }
    const auto& lg = f_.tensors[out].logical;
    if (rule_.ok()) {
      size_t want = 0;
      for (const AxisRule& ar : rule_.axes) want += ar.extent != AxisRule::Extent::Reduced;
      if (f_.nonReductionRank(out) != want)
        rankError(r,
                  tname(out) + " has " + num(f_.nonReductionRank(out)) + " non-Reduction axes but " +
                      exprDesc(e) + " of ranks " + num(f_.nonReductionRank(a)) + " and " +
                      num(f_.nonReductionRank(x.inputs[1].id)) + " produces " + num(want),
                  p.at(F::Outputs, 0));
    }
    // At most one Reduction axis (the contracted K), last in the logical domain.
    for (size_t j = 0; j < lg.size(); ++j)
      if (f_.axes[lg[j]].iter == IterType::Reduction && j + 1 != lg.size()) {
        r.error(DiagCode::IterTypeMismatch,
                "the Reduction axis " + axisDesc(lg[j]) + " of " + tname(out) +
                    " must be the last logical axis (" + std::string(opName(x.op)) + " reduces only K)",
                logicalPlace(out, j));
        break;
      }
    DType da = f_.tensors[a].dtype;
    for (size_t k = 1; k < x.inputs.size(); ++k) {
      DType d = f_.tensors[x.inputs[k].id].dtype;
      if (d != da)
        r.error(DiagCode::DTypeMismatch,
                "operand " + tname(x.inputs[k].id) + " of " + exprDesc(e) + " has dtype " +
                    std::string(dtypeName(d)) + " but " + tname(a) + " has " + std::string(dtypeName(da)),
                p.at(F::Inputs, k));
    }
    checkDType(e, 0, r);
  }

  std::vector<AxisId> noRed(TensorId t) const {
    std::vector<AxisId> r;
    for (AxisId a : f_.tensors[t].logical)
      if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
    return r;
  }
  // The place of the j-th non-Reduction logical axis of t.
  Place noRedPlace(TensorId t, size_t j) const {
    const auto& lg = f_.tensors[t].logical;
    size_t k = 0;
    for (size_t i = 0; i < lg.size(); ++i) {
      if (f_.axes[lg[i]].iter == IterType::Reduction) continue;
      if (k++ == j) return logicalPlace(t, i);
    }
    return tp(t).key(F::Logical);
  }
};

}  // namespace

void checkOp(const Fusion& f, ExprId e, std::span<const std::optional<int64_t>> constants, Reporter& r) {
  thread_local ShapeRule rule;  // reused: the verifier checks every expr of a large fusion
  OpChecks(f, constants, rule).check(e, r);
}

}  // namespace fc::verify
