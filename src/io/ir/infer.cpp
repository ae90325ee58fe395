// What a print leaves out, inferred once every statement is read (see reader.h):
//   - inputs: the `Inputs:` list (or a host program's signature), else the tensors used but never
//     defined, in the order printed; symbols used as values (not extents) are scalar inputs;
//   - outputs: the `Outputs:` list, else the tensors defined but never used;
//   - attributes, by the op's form: permute dims from the output's axis numbers (nvFuser clones
//     the input's axes in order), reduction dims from the Reduction axes, broadcast flags and
//     squeeze dims by aligning the domains (2024 prints no flags), expand and reshape sizes from
//     the output's extents;
//   - dtypes: printed ones (names, lists), cast names (both sides), reduction initial values, fill
//     values; then forward through the ops with nvFuser's type promotion (ir/op_rules.h) and
//     backward through ops that keep their operands' dtype. A dtype still unknown is a warning
//     and Float.
#include <algorithm>

#include "io/error_report.h"
#include "io/ir/reader.h"
#include "ir/op_rules.h"

namespace fc::ir_text {
namespace {

bool keepsOperandDType(const OpInfo& info, const Expr& e) {
  switch (info.category) {
    case OpCategory::Set:
    case OpCategory::Shape:
    case OpCategory::Matmul:
    case OpCategory::Binary: return info.promotion != Promotion::Complex;
    case OpCategory::Unary: return info.promotion != Promotion::Bool && info.promotion != Promotion::Part;
    case OpCategory::Reduction:
      return info.form == OpForm::Reduction && !(opAccepts(e.op, Attr::DType) && e.attrs.dtype);
    default: return false;
  }
}

// A parallel type of a kernel's loops (blocks, threads, vectorize, unroll, unswitch, MMA, group,
// bulk): only a scheduled loop domain has one, never a logical domain.
bool isKernelParallel(ParallelType t) {
  return t != ParallelType::Serial && t != ParallelType::Stream && !isDeviceDim(t);
}

}  // namespace

void Reader::finish() {
  if (opts_.segmented) {
    finishSegments();
    if (errors_) return;
  }
  const size_t nt = f_.tensors.size();
  // No tensor at all (names listed under Inputs: / Outputs: read as scalars) is no fusion either.
  if (nt == 0 || (f_.exprs.empty() && listed_inputs_.empty() && listed_outputs_.empty())) {
    // An error report without the fusion it came from: say what it is and what import needs.
    // Its message may print tensors (`Expected T0_g[ ... ] to be bound`), never an expr.
    if (auto rep = findErrorReport(text_.text())) {
      size_t at = begin_;
      while (at + 1 < end_ && tok(at).off < rep->offset) ++at;
      std::string quote(rep->line.substr(0, 160));
      if (rep->line.size() > 160) quote += "...";
      error(DiagCode::ImportSyntax,
            "this text is an nvFuser error report without the fusion it came from (`" + quote +
                "`): import needs the fusion itself (the Python repro nvFuser prints with the error, "
                "the printed IR of NVFUSER_DUMP=fusion_ir_presched, or the test's source); "
                "`fusecheck explain --error` reads the message alone",
            at);
      return;
    }
    error(DiagCode::ImportSyntax,
          nt == 0 ? "no tensor print such as `T0_g[ iS0{i0} ]` in this text"
                  : "the print shows tensors but no expr (`T1_l[ ... ] = op( ... )`) defining any of them",
          nt == 0 ? begin_ : printed_[0].tok);
    return;
  }
  // ---- a scheduled print: a tensor prints its loop domain (TensorView::toString,
  // csrc/tensor_view.cpp:64 @ 81c4b22fd, through TensorDomain::toString with loop_only), which is
  // its logical domain only before scheduling. Kernel-parallel axes (blockIdx, threadIdx, vectorize, unroll,
  // ...) exist only in a scheduled loop domain; without a TransformPrinter section that gave the logical
  // domain (transformSection), the fusion is not in this text.
  std::vector<TensorId> scheduled;
  for (TensorId t = 0; t < nt; ++t)
    for (AxisId a : f_.tensors[t].logical)
      if (isKernelParallel(f_.axes[a].parallel)) {
        scheduled.push_back(t);
        break;
      }
  if (!scheduled.empty()) {
    const TensorId t = scheduled[0];
    std::string axes;
    for (AxisId a : f_.tensors[t].logical)
      if (isKernelParallel(f_.axes[a].parallel))
        axes += (axes.empty() ? "" : ", ") + std::string(1, iterTypeLetter(f_.axes[a].iter)) +
                std::string(parallelTypePrinted(f_.axes[a].parallel)) + std::to_string(f_.axes[a].number);
    error(DiagCode::ImportUnsupported,
          std::string(f_.tensorName(t)) + "'s print shows a scheduled loop domain (" + axes +
              "), not its logical domain, and no TransformPrinter section gives the logical one",
          printed_[t].tok);
    Diagnostic& d = sink_.all().back();
    if (scheduled.size() > 1) {
      std::string more;
      for (size_t i = 1; i < scheduled.size() && i <= 5; ++i)
        more += (i > 1 ? ", " : "") + std::string(f_.tensorName(scheduled[i]));
      d.note(std::to_string(scheduled.size() - 1) + " more tensor" +
             (scheduled.size() > 2 ? "s print" : " prints") + " a scheduled loop domain: " + more +
             (scheduled.size() > 6 ? ", ..." : ""));
    }
    d.note(
        "import the fusion as printed before scheduling (NVFUSER_DUMP=fusion_ir_presched, or "
        "fusion->printMath() before the scheduler runs), or a print with its transforms "
        "(fusion->print(os, /*include_tensor_transforms=*/true) adds the TransformPrinter section)");
    return;
  }
  // ---- attributes a print leaves implicit, by form
  for (Expr& e : f_.exprs) {
    const OpInfo& info = opInfo(e.op);
    TensorId in0 = !e.inputs.empty() && e.inputs[0].isTensor() ? e.inputs[0].id : kNone;
    Tensor& out = f_.tensors[e.outputs[0]];
    const std::vector<AxisId>& ol = out.logical;
    Attrs& a = e.attrs;
    switch (info.form) {
      case OpForm::Permute: {
        if (!a.dims.empty()) break;
        // Output axes were cloned from the input in order: their numbers give the permutation.
        std::vector<AxisId> sorted = ol;
        std::sort(sorted.begin(), sorted.end(),
                  [&](AxisId x, AxisId y) { return f_.axes[x].number < f_.axes[y].number; });
        for (AxisId x : ol) a.dims.push_back(std::find(sorted.begin(), sorted.end(), x) - sorted.begin());
        out.root = sorted;
        break;
      }
      case OpForm::Reduction:
      case OpForm::Mean:
      case OpForm::Var:
      case OpForm::VarMean:
      case OpForm::Welford:
        if (!a.keepdim && a.dims.empty())
          for (size_t i = 0; i < ol.size(); ++i)
            if (f_.axes[ol[i]].iter == IterType::Reduction) a.dims.push_back(static_cast<int64_t>(i));
        break;
      case OpForm::Broadcast:
      case OpForm::BroadcastInDim:
        if (a.flags.empty() && in0 != kNone) {
          // New axes are Broadcast axes the input does not have at that position.
          std::vector<AxisId> src = nonReduction(in0);
          size_t j = 0;
          for (size_t i = 0; i < ol.size(); ++i) {
            size_t left_out = ol.size() - i, left_in = src.size() - j;
            bool is_new = f_.axes[ol[i]].iter == IterType::Broadcast &&
                          (left_in == 0 || left_out > left_in) &&
                          (left_in == 0 || f_.axes[src[j]].iter != IterType::Broadcast || left_out > left_in);
            a.flags.push_back(is_new);
            if (!is_new) ++j;
          }
        }
        break;
      case OpForm::Squeeze:
        if (in0 == kNone || !a.dims.empty()) break;
        if (!a.flags.empty()) {
          for (size_t i = 0; i < a.flags.size(); ++i)
            if (a.flags[i]) a.dims.push_back(static_cast<int64_t>(i));
          a.flags.clear();
        } else {
          std::vector<AxisId> src = nonReduction(in0);
          size_t j = 0;
          for (size_t i = 0; i < src.size(); ++i) {
            size_t left_in = src.size() - i, left_out = ol.size() - j;
            if (f_.axes[src[i]].iter == IterType::Broadcast && left_in > left_out)
              a.dims.push_back(static_cast<int64_t>(i));
            else
              ++j;
          }
        }
        break;
      case OpForm::Expand:
        if (a.shape.empty())
          for (AxisId x : ol)
            a.shape.push_back(f_.axes[x].expanded != kNone ? f_.axes[x].expanded : f_.axes[x].extent);
        break;
      case OpForm::Reshape:
        a.shape.clear();
        for (AxisId x : ol) a.shape.push_back(f_.axes[x].extent);
        break;
      default: break;
    }
  }
  // ---- inputs and outputs
  std::vector<char> used(nt, 0);
  for (const Expr& e : f_.exprs)
    for (const ValueRef& v : e.inputs)
      if (v.isTensor()) used[v.id] = 1;
  f_.inputs = listed_inputs_;
  bool listed = !listed_inputs_.empty();
  for (TensorId t = 0; t < nt; ++t) {
    if (!used[t] || f_.tensors[t].definition != kNone) continue;
    ValueRef v = ValueRef::tensor(t);
    if (std::find(f_.inputs.begin(), f_.inputs.end(), v) != f_.inputs.end()) continue;
    if (listed)
      note(std::string(f_.tensorName(t)) +
               " is used but neither defined nor listed as an input; it is taken as one",
           printed_[t].tok);
    f_.inputs.push_back(v);
  }
  for (TensorId t : listed_outputs_) {
    bool is_input = std::find(f_.inputs.begin(), f_.inputs.end(), ValueRef::tensor(t)) != f_.inputs.end();
    if (f_.tensors[t].definition == kNone && !is_input) {
      // The text ends inside the print's `%kernel_math {` block: the definitions were cut off.
      if (brace_depth_ > 0) {
        error(DiagCode::ImportSyntax,
              std::string(f_.tensorName(t)) +
                  " is listed as an output, but the text ends inside the print's `{ ... }` block before "
                  "any expr defines it: a cut paste? Paste the whole print",
              printed_[t].tok);
        return;
      }
      note(std::string(f_.tensorName(t)) +
               " is listed as an output but the print does not define it; it is left out",
           printed_[t].tok);
      continue;
    }
    f_.outputs.push_back(t);
  }
  if (f_.outputs.empty())
    for (TensorId t = 0; t < nt; ++t)
      if (f_.tensors[t].definition != kNone && !used[t]) f_.outputs.push_back(t);
  // Scalar symbols used as values (not extents) are scalar inputs.
  std::vector<char> is_extent(f_.scalars.size(), 0);
  for (const Axis& ax : f_.axes) {
    if (ax.extent < is_extent.size()) is_extent[ax.extent] = 1;
    if (ax.expanded < is_extent.size()) is_extent[ax.expanded] = 1;
  }
  auto valueUse = [&](ScalarId s) {
    if (s >= f_.scalars.size() || f_.scalars[s].kind != ScalarKind::Symbol || is_extent[s]) return;
    f_.scalars[s].kind = ScalarKind::Input;
    ValueRef v = ValueRef::scalar(s);
    if (std::find(f_.inputs.begin(), f_.inputs.end(), v) == f_.inputs.end()) f_.inputs.push_back(v);
  };
  for (const Expr& e : f_.exprs)
    for (const ValueRef& v : e.inputs)
      if (v.isScalar()) valueUse(v.id);
  // ---- dtypes
  std::vector<char> known(nt, 0);
  for (TensorId t = 0; t < nt; ++t) known[t] = printed_[t].dtype_known;
  inferDTypes(known);
  for (Expr& e : f_.exprs)
    if (opInfo(e.op).form == OpForm::Full) e.attrs.dtype = f_.tensors[e.outputs[0]].dtype;
  for (TensorId t = 0; t < nt; ++t)
    if (!known[t] && (used[t] || f_.tensors[t].definition != kNone))
      warning(DiagCode::ImportUnsupported,
              "the dtype of " + std::string(f_.tensorName(t)) +
                  " cannot be inferred from the print; assuming float",
              printed_[t].tok);
}

void Reader::setKnown(std::vector<char>& known, TensorId t, DType d) {
  if (known[t]) return;
  known[t] = 1;
  f_.tensors[t].dtype = d;
}

void Reader::inferDTypes(std::vector<char>& known) {
  // What the print says about single exprs.
  for (ExprId e = 0; e < f_.exprs.size(); ++e) {
    const Expr& ex = f_.exprs[e];
    const OpForm form = opInfo(ex.op).form;
    if (form == OpForm::Cast && ex.attrs.dtype) setKnown(known, ex.outputs[0], *ex.attrs.dtype);
    if (expr_in_dtype_[e] && !ex.inputs.empty() && ex.inputs[0].isTensor())
      setKnown(known, ex.inputs[0].id, *expr_in_dtype_[e]);
    // A Double initial value says only that the dtype is floating: until its zero values were typed,
    // nvFuser gave every floating reduction the init Double 0.0 (IrContainer::zeroVal(DataType),
    // csrc/ir_container.cpp:232-236 @ 831821f3a), whatever the tensor's dtype. It decides below
    // only where nothing else does.
    if (expr_init_dtype_[e] && *expr_init_dtype_[e] != DType::Double)
      setKnown(known, ex.outputs[0], *expr_init_dtype_[e]);
    if (form == OpForm::Full && ex.attrs.value != kNone && f_.scalars[ex.attrs.value].dtype != DType::Index)
      setKnown(known, ex.outputs[0], f_.scalars[ex.attrs.value].dtype);
    if (form == OpForm::Iota && ex.attrs.dtype) setKnown(known, ex.outputs[0], *ex.attrs.dtype);
  }
  propagateDTypes(known);
  bool weak = false;
  for (ExprId e = 0; e < f_.exprs.size(); ++e)
    if (expr_init_dtype_[e] == DType::Double && !known[f_.exprs[e].outputs[0]]) {
      setKnown(known, f_.exprs[e].outputs[0], DType::Double);
      weak = true;
    }
  if (weak) propagateDTypes(known);
  // A sum or product whose output dtype differs from its operand's was given that dtype.
  for (Expr& ex : f_.exprs)
    if (opInfo(ex.op).form == OpForm::Reduction && opAccepts(ex.op, Attr::DType) && !ex.inputs.empty() &&
        ex.inputs[0].isTensor() && known[ex.inputs[0].id] && known[ex.outputs[0]] &&
        f_.tensors[ex.inputs[0].id].dtype != f_.tensors[ex.outputs[0]].dtype)
      ex.attrs.dtype = f_.tensors[ex.outputs[0]].dtype;
}

void Reader::propagateDTypes(std::vector<char>& known) {
  // Forward, with nvFuser's promotion where every operand is known.
  for (int pass = 0; pass < 3; ++pass)
    for (const Expr& ex : f_.exprs) {
      const OpInfo& info = opInfo(ex.op);
      if (isOpaque(ex.op)) continue;  // no rule: its outputs have the dtypes the print gives
      std::optional<DType> dt;
      bool operands_known = !ex.inputs.empty();
      for (const ValueRef& v : ex.inputs) operands_known = operands_known && (!v.isTensor() || known[v.id]);
      if (operands_known) {
        dt = outputDType(f_, ex, 0).dtype;
      } else if (info.category == OpCategory::Compare || info.promotion == Promotion::Bool) {
        dt = DType::Bool;
      } else if (info.promotion != Promotion::Part && info.promotion != Promotion::Complex) {
        const size_t n = info.promotion == Promotion::Keep ? 1 : ex.inputs.size();
        for (size_t i = ex.op == OpKind::Where ? 1 : 0; i < n; ++i) {
          const ValueRef& v = ex.inputs[i];
          if (v.isTensor() && known[v.id]) {
            DType d = f_.tensors[v.id].dtype;
            if (!dt || (isFloatingPoint(d) && dtypeBytes(d) > dtypeBytes(*dt))) dt = d;
          }
        }
      }
      if (!dt) continue;
      for (size_t i = 0; i < ex.outputs.size(); ++i) {
        // Each output by the op's rule (Welford's N is Index) where the operands are known.
        std::optional<DType> di = i > 0 && operands_known ? outputDType(f_, ex, i).dtype : dt;
        if (!known[ex.outputs[i]] && di) setKnown(known, ex.outputs[i], *di);
      }
      if (info.category == OpCategory::Shape || info.category == OpCategory::Set)
        for (const ValueRef& v : ex.inputs)
          if (v.isTensor() && !known[v.id]) setKnown(known, v.id, *dt);
    }
  // Backward: ops that keep their operands' dtype give unknown operands the output's dtype.
  for (int pass = 0; pass < 4; ++pass)
    for (size_t i = f_.exprs.size(); i-- > 0;) {
      const Expr& ex = f_.exprs[i];
      const OpInfo& info = opInfo(ex.op);
      if (ex.outputs.empty() || !known[ex.outputs[0]] || !keepsOperandDType(info, ex)) continue;
      DType d = f_.tensors[ex.outputs[0]].dtype;
      bool changed = false;
      for (const ValueRef& v : ex.inputs)
        if (v.isTensor() && !known[v.id]) {
          setKnown(known, v.id, d);
          changed = true;
        }
      if (!changed) continue;
      for (const Expr& ex2 : f_.exprs) {
        const OpInfo& i2 = opInfo(ex2.op);
        if (i2.category != OpCategory::Set && i2.category != OpCategory::Shape) continue;
        if (!ex2.inputs.empty() && ex2.inputs[0].isTensor() && known[ex2.inputs[0].id])
          for (TensorId o : ex2.outputs)
            if (!known[o]) setKnown(known, o, f_.tensors[ex2.inputs[0].id].dtype);
      }
    }
}

}  // namespace fc::ir_text
