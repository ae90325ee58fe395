// Evaluation of one expr on host tensors: the math of every op kind in
// ir/ops.def with torch / nvFuser semantics (broadcasting right-aligned,
// permute, reshape with one -1, squeeze, expand, slice with Python-style
// negative indices, pad (innermost first, negative widths crop), cat,
// reductions with keepdim, mean, var / var_mean with correction, factories,
// matmul / linear with batch broadcasting, gelu none/tanh, where,
// comparisons -> Bool).
//
// Arithmetic is fp64; integer results are exact (an int64 beyond 2^53 is an
// ExecError, never a silently rounded value). Flavour decides what happens
// to each produced tensor: Exact keeps fp64 (integers and Bool converted as
// their dtype says, without range limits), Faithful rounds every element to
// the output's declared dtype. Cost: O(numel) per op, O(M*N*K) per matmul.
#pragma once

#include <functional>
#include <vector>

#include "exec/host_tensor.h"
#include "exec/scalar_values.h"
#include "ir/fusion.h"

namespace fc::exec {

enum class Flavour : uint8_t { Exact, Faithful };

struct OpContext {
  const Fusion* fusion = nullptr;
  ScalarValues* scalars = nullptr;
  Flavour flavour = Flavour::Exact;
  MemoryBudget* budget = nullptr;
  // Maps a global shape evaluated from attributes (reshape, expand,
  // factories, broadcast_in_dim) to the shape produced for output `t`: the
  // identity for references, the per-rank shape in the segmented executor.
  std::function<Shape(TensorId t, const Shape& global)> localize;
};

// Evaluates expr `e`. `inputs[i]` is the tensor for operand i (null for
// scalar operands). Returns one tensor per output, already rounded per the
// flavour. Throws ExecError (at expr e) on a user-facing failure.
std::vector<HostTensor> evalExpr(const OpContext& ctx, ExprId e,
                                 const std::vector<const HostTensor*>& inputs);

// The fp64 value of unary op `op` (neg ... logical_not, gelu with
// tanh_approx) at x, as evalExpr computes each element.
double unaryOpValue(OpKind op, double x, bool tanh_approx);

// Applies the flavour's conversion of a produced tensor to `dtype`.
void finishOutput(HostTensor& t, DType dtype, Flavour flavour);

// The size of the reduction an expr performs (product of reduced extents,
// the K of a matmul / linear), 1 for non-reductions. Used by the tolerance.
int64_t reductionSize(const Fusion& f, ExprId e, const std::vector<const HostTensor*>& inputs);
// The same from the shape of the first tensor input alone (null: unknown, 1).
int64_t reductionSize(const Fusion& f, ExprId e, const Shape* input0);

}  // namespace fc::exec
