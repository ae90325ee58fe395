#include "pipeline/indexing_ops.h"

#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"

namespace fc {

std::optional<IndexingOp> indexingOp(const Fusion& f, const Expr& x) {
  if (!isOpaque(x.op) || x.attrs.dims.size() != 1 || x.outputs.size() != 1) return std::nullopt;
  const std::string& n = x.attrs.name;
  IndexingOp op;
  if (n == "index_select")
    op.kind = IndexingOp::Kind::IndexSelect;
  else if (n == "gather" || n == "torch_gather" || n == "torchGather")
    op.kind = IndexingOp::Kind::Gather;
  else if (n == "take_along_axis" || n == "takeAlongAxis")
    op.kind = IndexingOp::Kind::TakeAlongAxis;
  else
    return std::nullopt;
  std::vector<TensorId> tensors;
  for (const ValueRef& v : x.inputs)
    if (v.isTensor() && v.id < f.tensors.size()) tensors.push_back(v.id);
  if (tensors.size() != 2) return std::nullopt;
  op.lookup = tensors[0];
  op.index = tensors[1];
  const size_t rank = f.nonReductionRank(op.lookup);
  if (f.nonReductionRank(x.outputs[0]) != rank || x.attrs.dims[0] < 0 ||
      static_cast<size_t>(x.attrs.dims[0]) >= rank)
    return std::nullopt;
  op.dim = static_cast<size_t>(x.attrs.dims[0]);
  return op;
}

bool unmappedSymbolicFails(const Fusion& f, const std::vector<ExprId>& exprs, const Profile& p,
                           const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::UnmappedSymbolic>() == nv::UnmappedSymbolic::OneSuffices) return false;
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    if (!isOpaque(x.op)) continue;
    std::optional<IndexingOp> op = indexingOp(f, x);
    if (!op) continue;
    const TensorId out = x.outputs[0];
    size_t pos = 0;
    for (AxisId a : f.tensors[out].logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      const size_t k = pos++;
      if (f.axes[a].iter != IterType::Symbolic || op->lookupMaps(k)) continue;
      const std::string axis = axisToString(f, a);
      auto& d = sink.error(DiagCode::UnmappedSymbolicAxis,
                           exprLabel(f, e) + " gives " + std::string(f.tensorName(out)) +
                               " the Symbolic axis " + axis + " (axis " + std::to_string(k) +
                               "), which its lookup " + std::string(f.tensorName(op->lookup)) +
                               " does not map, and concretization asserts that every producer maps it: "
                               "\"No input ID found to map with output ID: " +
                               axis + "\"",
                           Location::at(file, Place::expr(e)));
      d.note(
          op->kind == IndexingOp::Kind::Gather
              ? "gather's output axes are its index's, and its lookup maps none of them (their sizes may "
                "differ); the axis is Symbolic because the index's is (made by a dynamic reshape or resize)"
              : "the op's output axis " + std::to_string(op->dim) +
                    " (its `dim`) is the index's, which the lookup does not map; the axis is Symbolic "
                    "because "
                    "the index's is (made by a dynamic reshape or resize)");
      d.note(
          "DynamicTransformConcretizer gives a Symbolic output axis the IterType of the producer axes mapped "
          "to "
          "it, and before #1194 asserted inside its loop over the producers that each maps one "
          "(csrc/dynamic_transform.cpp:830-833 @ d0ab4a5bd^)");
      d.check = CheckRef{"UnmappedSymbolicOutput", {{"axis", axis}}};
      if (const nv::Change* fixed = nv::firstChangeTo(nv::UnmappedSymbolic::OneSuffices))
        d.note("fixed by " + fixed->label() + ": one mapped producer suffices");
      return true;
    }
  }
  return false;
}

}  // namespace fc
