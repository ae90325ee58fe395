// Builds a Fusion op by op the way nvFuser's frontends do, inferring each output's logical
// domain from the op and its operands (shape inference per op kind of ops.def). Used by the
// Python-repro importer; names follow nvFuser: tensors T0, T1, ... and symbolic extents / scalar
// inputs i0, i1, ... (one counter, dtype prefix) in creation order, IterDomain numbers from one
// counter in creation order.
//
// Complexity: each op is linear in the ranks of its operands.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// What is wrong with a device mesh an importer read, as a message ("" when nothing is): no
// devices (`code` = FC0206), a negative or repeated device (FC0207). The importers report it at
// the mesh's text, so that the verifier's pointer-only diagnostic never has to.
std::string importedMeshProblem(const std::vector<int64_t>& devices, DiagCode& code);

class ImportBuilder {
 public:
  explicit ImportBuilder(Fusion& f) : f_(f) {}

  Fusion& fusion() { return f_; }

  // Scalars.
  ScalarId freshSymbol();             // i<n>, Index
  ScalarId scalarInput(DType dtype);  // <prefix><n>, a fusion scalar input
  ScalarId constInt(int64_t v, DType dtype = DType::Index);
  ScalarId constFloat(double v, DType dtype = DType::Double);
  ScalarId constBool(bool v);
  // Derived scalar; folds when both operands are integer constants.
  ScalarId derived(ScalarOp op, ScalarId a, ScalarId b = kNone);
  std::optional<int64_t> constValue(ScalarId s) const;

  // Axes and tensors.
  AxisId axis(IterType iter, ScalarId extent, ScalarId expanded = kNone);
  TensorId tensor(DType dtype, std::vector<AxisId> logical);

  // Appends an op; on success returns its outputs, else sets `error` (a message naming what is
  // wrong with the operands or attributes) and returns nothing. `dtype` is the op's dtype
  // argument where it has one (cast, reductions, factories).
  std::optional<std::vector<TensorId>> op(OpKind k, std::vector<ValueRef> in, Attrs attrs,
                                          std::string& error);

  // Sets memory types as nvFuser does: fusion inputs/outputs global, the rest local; gives
  // op outputs the mesh of their inputs when they have none (sharding propagation of meshes).
  void finish();

  std::vector<AxisId> nonReduction(TensorId t) const;
  DType scalarDType(ScalarId s) const { return f_.scalars[s].dtype; }

 private:
  AxisId cloneAxis(AxisId a);
  Fusion& f_;
  uint32_t next_other_ = 0;
  uint32_t next_axis_ = 0;
  uint32_t next_tensor_ = 0;
};

}  // namespace fc
