// The CPU references: the unsegmented fusion's math on global
// tensors — every rank of each mesh at once, so a sum over a DID axis is the
// cross-rank reduction — in two flavours: Exact (fp64, integers exact, Bool
// as Bool) and Faithful (fp64 arithmetic, every produced tensor rounded to
// its declared dtype). Only exprs that the outputs depend on are evaluated,
// in topological order (Kahn, O(exprs + edges)).
//
// Alongside the values it records, per tensor, what the tolerance needs:
// the least precise floating dtype produced on the path from the inputs
// (fusion inputs are exact data and do not count) and the largest reduction
// size on that path, and the widest reduction over DID axes (a collective).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "exec/inputs.h"
#include "exec/op_eval.h"

namespace fc::exec {

struct ReferenceResult {
  std::vector<std::optional<HostTensor>> values;  // per TensorId (global)
  std::vector<DType> path_dtype;                  // per TensorId
  std::vector<int64_t> path_reduction;            // per TensorId
  std::vector<int64_t> path_hops;  // per TensorId: ranks - 1 of the widest cross-rank reduction
};

// Exprs needed by `f`'s outputs, in a topological order. ExecError on a
// cycle or a tensor nobody produces.
std::vector<ExprId> neededExprs(const Fusion& f);

// Fills r's path metadata (not its values) from the global shapes of the
// tensors the outputs depend on (`shape(t)`, null when unknown: no
// reduction counted) — what runReference records as it evaluates, for a
// reference computed elsewhere (the GPU's, exec/cuda/cuda_reference.h).
// O(exprs + edges).
void computePaths(const Fusion& f, const std::function<const Shape*(TensorId)>& shape, ReferenceResult& r);

ReferenceResult runReference(const Fusion& f, const RunInputs& in, ScalarValues& scalars, Flavour flavour,
                             MemoryBudget* budget);

}  // namespace fc::exec
