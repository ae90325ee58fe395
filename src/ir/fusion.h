// The complete fusion: arenas of scalars, axes, tensors, exprs and meshes,
// plus ordered inputs/outputs, concrete input descriptions, an optional
// explicit segmentation, the era and free-form provenance (DESIGN §1).
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
  std::optional<Era> era;
  std::vector<std::pair<std::string, std::string>> provenance;  // ordered key -> text
  std::vector<ConcreteInput> concrete_inputs;
  std::optional<uint64_t> seed;
  std::optional<Segmentation> segmentation;
  Tolerance tolerance;

  // ---- builders ----
  ScalarId addSymbol(std::string_view name, DType dtype = DType::Index);
  ScalarId addScalarInput(std::string_view name, DType dtype);
  ScalarId addConstInt(int64_t v, DType dtype = DType::Index);
  ScalarId addConstFloat(double v, DType dtype = DType::Double);
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
};

}  // namespace fc
