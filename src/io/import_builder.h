// Builds a Fusion op by op the way nvFuser's frontends do, inferring each output's logical
// domain from the op and its operands (shape inference per op kind of ops.def). Used by the
// Python-repro importer; names follow nvFuser: tensors T0, T1, ... and symbolic extents / scalar
// inputs i0, i1, ... (one counter, dtype prefix) in creation order, IterDomain numbers from one
// counter in creation order.
//
// Complexity: each op is linear in the ranks of its operands.
#pragma once

#include <optional>
#include <span>
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
  ScalarId freshSymbol();               // i<n>, Index
  ScalarId scalarInput(DType dtype);    // <prefix><n>, a fusion scalar input
  ScalarId unknownScalar(DType dtype);  // <prefix><n>, a value fusecheck does not compute (a Symbol)
  // An unknownScalar standing for scalar expression `call` ("sqrt(d3)"), marked in the provenance
  // (ir/uncomputed_scalar.h) so that a verdict which needs its value is not decided.
  // A value nvFuser computes from `operands` and fusecheck does not (ir/uncomputed_scalar.h): its
  // call and the free scalars it is computed from are recorded.
  ScalarId uncomputedScalar(DType dtype, std::string call, std::span<const ScalarId> operands);
  ScalarId constInt(int64_t v, DType dtype = DType::Index);
  ScalarId constFloat(double v, DType dtype = DType::Double);
  ScalarId constComplex(double re, double im, DType dtype = DType::ComplexDouble);
  ScalarId constBool(bool v);
  // nvFuser's castOp on a scalar, where fusecheck computes it: a value that constants determine
  // converts (2.5 to Int is 2), an integer value keeps its value as another integer dtype. Nothing
  // for another conversion (a symbolic float, an integer to a float): the caller makes an
  // uncomputedScalar. `out_of_range` is set (and nothing returned) for a float beyond int64.
  std::optional<ScalarId> castScalar(ScalarId s, DType to, bool& out_of_range);
  // Derived scalar of `dtype` (default: a's); folds when both operands are integer constants.
  ScalarId derived(ScalarOp op, ScalarId a, ScalarId b = kNone, std::optional<DType> dtype = std::nullopt);
  std::optional<int64_t> constValue(ScalarId s) const;

  // Axes and tensors.
  AxisId axis(IterType iter, ScalarId extent, ScalarId expanded = kNone);
  TensorId tensor(DType dtype, std::vector<AxisId> logical);

  // Appends an op; on success returns its outputs, else sets `error` (a message naming what is
  // wrong with the operands or attributes) and returns nothing. Tensor operands of an
  // elementwise op with a lower rank than the others are broadcast first (leading axes), through
  // a broadcast expr, as nvFuser's frontends do. `dtype` is the op's dtype
  // argument where it has one (cast, reductions, factories).
  std::optional<std::vector<TensorId>> op(OpKind k, std::vector<ValueRef> in, Attrs attrs,
                                          std::string& error);

  // Gives the lower-rank tensors of `in` leading Broadcast axes up to the highest rank, through
  // broadcast exprs, as nvFuser's ops::maybeBroadcast does; false (with `error`) on failure.
  bool maybeBroadcast(std::vector<ValueRef>& in, std::string& error);

  // Appends an op fusecheck has no rule for (OpKind::Opaque, attrs.name = `name`, attrs.dims =
  // `dims`: the axes it works on, where the pipeline reads them) whose
  // outputs the caller built from nvFuser's definition of that op, with axis() / copyAxis().
  std::vector<TensorId> opaque(std::string name, std::vector<ValueRef> in, std::vector<TensorId> outs,
                               std::vector<int64_t> dims = {});
  // An opaque op whose one output nvFuser builds with the same function as op `like`'s (scaled_mm's
  // newForMatmul): the output `like` would give `like_in`, in dtype `dtype`; the op records all of
  // `in`. Sets `error` and returns nothing when `like`'s rule rejects the operands.
  std::optional<TensorId> opaqueLike(std::string name, OpKind like, std::vector<ValueRef> like_in,
                                     std::vector<ValueRef> in, DType dtype, std::string& error);
  // A fresh axis with `a`'s extent and type, a Reduction axis becoming an Iteration one (how
  // an op's output clones its operand's axes).
  AxisId copyAxis(AxisId a) { return cloneAxis(a); }

  // Loop-domain transforms as nvFuser's TensorView::split / merge make them, recorded in t's
  // transforms: loop axis `i` split by `factor` into an outer and an inner axis (the inner one
  // of extent `factor` when `inner_split`, else the outer), or loop axes `a` and `b` merged
  // into one at min(a, b). The caller checks the indices.
  void splitLoop(TensorId t, size_t i, ScalarId factor, bool inner_split);
  void mergeLoop(TensorId t, size_t a, size_t b);
  // TensorView::reorder: loop axis `from` moves to `to` for each pair of `old2new` (negative
  // positions count from the end), the others keep their relative order in the free places. False,
  // with `why`, on a position out of range or named twice.
  bool reorderLoop(TensorId t, const std::vector<std::pair<int64_t, int64_t>>& old2new, std::string& why);

  // Sets memory types as nvFuser does: fusion inputs/outputs global, the rest local. Meshes stay
  // as the repro set them: giving the others one is the sharding passes' work, at a profile.
  void finish();

  // Gives every op output without a mesh the mesh of its first meshed tensor input, in expr
  // order: for generated fusions written the way nvFuser's C++ tests write theirs, which set a
  // mesh on every tensor. No parallel type changes.
  void meshEveryTensorLikeItsInputs();

  std::vector<AxisId> nonReduction(TensorId t) const;
  DType scalarDType(ScalarId s) const { return f_.scalars[s].dtype; }

 private:
  // A reduction of Broadcast axes of extent 1 built as nvFuser's reductionOp and Welford build it
  // (a squeeze first); nothing when the reduction has none of them.
  std::optional<std::vector<TensorId>> trivialReduction(OpKind k, TensorId t, Attrs& attrs, std::string& err);
  AxisId cloneAxis(AxisId a);
  Fusion& f_;
  uint32_t next_other_ = 0;
  uint32_t next_axis_ = 0;
  uint32_t next_tensor_ = 0;
};

}  // namespace fc
