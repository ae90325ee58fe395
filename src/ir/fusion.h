// The complete fusion: arenas of scalars, axes, tensors, exprs and meshes,
// plus ordered inputs/outputs, concrete input descriptions, an optional
// explicit segmentation, the era, the origin, the nvFuser point, where an
// imported repro's text defines each node, and free-form provenance.
//
// Everything is index-based. Builders append; nothing is ever removed, so
// ids stay valid. `uses()` is derived and rebuilt by `rebuildUses()`.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diag/source.h"
#include "ir/axis.h"
#include "ir/expr.h"
#include "ir/ids.h"
#include "ir/mesh.h"
#include "ir/scalar.h"
#include "ir/segmentation.h"
#include "ir/tensor.h"
#include "support/interner.h"

namespace fc {

// What nvFuser's `inputs = [...]` says about one fusion input, per rank.
struct ConcreteInput {
  ValueRef value;                    // the fusion input it describes
  std::vector<int64_t> shape;        // local (per-rank) sizes
  std::vector<int64_t> strides;      // empty: contiguous
  std::optional<ConstValue> scalar;  // for scalar inputs
  // Generated tensor data: values in [low, high) (make_tensor's low / high,
  // randint's bounds, rand's [0, 1)), or every element `fill` (ones, zeros,
  // full). Neither: the generator's defaults.
  std::optional<std::pair<double, double>> range;
  std::optional<double> fill;
};

// A keyword argument a Python repro spells in one of the forms nvFuser's frontends renamed
// (`axes=` / `dims=` of fd.ops.sum, `symbolic_sizes=` / `shape=` of fd.define_tensor, ...): the
// spelling says which frontends and points ran the script (pipeline/keyword_spellings.h).
struct KeywordUse {
  std::string call;     // "fd.ops.sum", "fd.define_tensor"
  std::string keyword;  // as the script spells it
  LineCol at;           // where, in the imported text; {0, 0}: not known
};

// How a repro was made and run, as far as it says (format /2 "origin").
struct ReproOrigin {
  std::string kind;  // "python-legacy", "python-direct", "cpp-test", "printed-ir", "segmented-dump", "json"
  std::string frontend;              // "" or "python", "direct", "cpp"
  std::string executor;              // "" or "fec", "mde", "mde-fec", "hostir"
  std::string detail;                // free text: the test, the params
  std::vector<KeywordUse> keywords;  // in the script's order
  // A print's style bounds the points that printed it: commits of nvFuser's main, the first
  // that prints this style and the first that no longer does ("" where unbounded).
  std::string printed_from, printed_before;
};

// The nvFuser point a repro records (format /2 "nvfuser"; format /1 "era").
struct RecordedPoint {
  std::string point;    // what --nvfuser takes: "2024-06-30", "head", ...
  std::string version;  // as a repro header prints it: "0.2.14+git7f0bd0d"
  std::string commit;   // a commit of nvFuser's main
};

// Where the text a fusion was imported from defines its nodes (format /2 "source"): that text's
// path as the import was given it, and line:col by tensor, scalar and expr id; {0, 0}, or an id
// past the end, where no text defined the node.
struct SourcePositions {
  std::string file;
  std::vector<LineCol> tensors, scalars, exprs;
};

struct Tolerance {
  std::optional<double> rtol;
  std::optional<double> atol;
};

class Fusion {
 public:
  // ---- arenas (public for fast read access by passes) ----
  Interner names;
  std::vector<Scalar> scalars;
  std::vector<Axis> axes;
  std::vector<Tensor> tensors;
  std::vector<Expr> exprs;
  std::vector<Mesh> meshes;

  std::vector<ValueRef> inputs;
  std::vector<TensorId> outputs;

  // ---- repro metadata ----
  std::string name;
  std::optional<Era> era;  // format /1
  std::optional<ReproOrigin> origin;
  std::optional<RecordedPoint> nvfuser;
  std::optional<SourcePositions> source;
  std::vector<std::pair<std::string, std::string>> provenance;  // ordered key -> text
  std::vector<ConcreteInput> concrete_inputs;
  std::optional<uint64_t> seed;
  std::optional<Segmentation> segmentation;
  Tolerance tolerance;
  // A copy that left exprs out (ir/live_exprs.h): each expr's id in the fusion it was copied
  // from, and that fusion's expr count; exprs appended after the copy are numbered after the
  // original's. Empty: the ids are the repro's own.
  std::vector<ExprId> expr_origin;
  size_t origin_expr_count = 0;

  // ---- builders ----
  ScalarId addSymbol(std::string_view name, DType dtype = DType::Index);
  ScalarId addScalarInput(std::string_view name, DType dtype);
  ScalarId addConstInt(int64_t v, DType dtype = DType::Index);
  ScalarId addConstFloat(double v, DType dtype = DType::Double);
  ScalarId addConstComplex(double re, double im, DType dtype = DType::ComplexDouble);
  ScalarId addConstBool(bool v);
  ScalarId addDerived(ScalarOp op, ScalarId lhs, ScalarId rhs = kNone, DType dtype = DType::Index);
  ScalarId addSize(TensorId t, int32_t dim);
  AxisId addAxis(uint32_t number, IterType iter, ParallelType pt, ScalarId extent, ScalarId expanded = kNone);
  TensorId addTensor(std::string_view name, DType dtype, MemoryType mem, std::vector<AxisId> logical,
                     MeshId mesh = kNone);
  // Appends the expr and sets each output's `definition`.
  ExprId addExpr(OpKind op, std::vector<ValueRef> in, std::vector<TensorId> out, Attrs attrs = {});
  MeshId addMesh(std::vector<int64_t> shape, std::vector<int64_t> devices);

  // ---- lookups (O(1) after the first call; rebuilt lazily) ----
  std::optional<TensorId> findTensor(std::string_view name) const;
  std::optional<ScalarId> findScalar(std::string_view name) const;  // named scalars only

  std::string_view tensorName(TensorId t) const { return names.str(tensors[t].name); }
  std::string_view scalarName(ScalarId s) const {
    return scalars[s].name == kNoName ? std::string_view() : names.str(scalars[s].name);
  }
  // Tensor number from the name ("T4" -> 4), or -1 if the name is not T<n>.
  int64_t tensorNumber(TensorId t) const;

  bool isInput(TensorId t) const;
  bool isOutput(TensorId t) const;

  // Consumers of each tensor, in expr order, each once. Built on the first
  // call (nothing on the analysis path needs it: a million-expr repro does
  // not pay for it); call rebuildUses() after edits. Like the name index,
  // not safe against two threads' first calls.
  std::span<const ExprId> uses(TensorId t) const;
  void rebuildUses() { buildUses(); }

  // Count of non-Reduction logical axes (the rank a bound tensor must have).
  size_t nonReductionRank(TensorId t) const;
  // The axis size(T, d) reads (a Size scalar): T's d-th non-Reduction logical axis, or kNone.
  AxisId sizeAxis(const Scalar& sc) const;

 private:
  mutable std::vector<NameId> tensor_by_name_;  // NameId -> TensorId
  mutable std::vector<ScalarId> scalar_by_name_;
  mutable size_t indexed_tensors_ = 0;
  mutable size_t indexed_scalars_ = 0;
  // uses(t) is use_list_[use_begin_[t] .. use_begin_[t + 1]): two arrays
  // for all tensors, not a heap block per tensor (a million at 1M exprs).
  mutable std::vector<uint32_t> use_begin_;
  mutable std::vector<ExprId> use_list_;
  void buildUses() const;
  void indexNames() const;
  // The id `by_name` holds for name `n` (tensor_by_name_ or scalar_by_name_), if any.
  template <typename Id>
  std::optional<Id> findNamed(std::string_view n, const std::vector<Id>& by_name) const;
};

// Whether an expr of `f` is an op fusecheck has no shape rule for (OpCategory::Opaque).
bool holdsOpaqueOp(const Fusion& f);

// Starts a fusion built from a part of `from` (a segment, a reduced repro)
// in the empty `to`: what describes the repro rather than its graph (name,
// era, origin, nvFuser point, provenance, meshes, seed, tolerance), so that
// the part replays under the same profile, and the scalars (ids unchanged,
// names interned into `to`).
void copyReproMetadata(const Fusion& from, Fusion& to);

// Calls on_scalar(ScalarId&), on_tensor(TensorId&) and on_value(ValueRef&) on every id the
// fusion holds outside the scalar arena: axis extents, transform factors, expr operands,
// outputs and attributes, the fusion's inputs and outputs, concrete inputs and forwarded
// extents. (A derived scalar's operands and a size's tensor are the caller's business.)
template <class OnScalar, class OnTensor, class OnValue>
void forEachIdRef(Fusion& f, OnScalar&& on_scalar, OnTensor&& on_tensor, OnValue&& on_value) {
  for (Axis& a : f.axes) {
    on_scalar(a.extent);
    on_scalar(a.expanded);
  }
  for (Tensor& t : f.tensors)
    for (AxisTransform& tr : t.transforms) on_scalar(tr.factor);
  for (Expr& e : f.exprs) {
    for (ValueRef& r : e.inputs) on_value(r);
    for (TensorId& t : e.outputs) on_tensor(t);
    eachAttrScalar(e.attrs, on_scalar);
  }
  for (ValueRef& r : f.inputs) on_value(r);
  for (TensorId& t : f.outputs) on_tensor(t);
  for (ConcreteInput& c : f.concrete_inputs) on_value(c.value);
  if (f.segmentation)
    for (ForwardedExtent& fe : f.segmentation->forward) on_scalar(fe.symbol);
}

// The value of scalar `s` when it is an integer constant (nothing for an id out of range).
std::optional<int64_t> constIntOf(const Fusion& f, ScalarId s);

}  // namespace fc
