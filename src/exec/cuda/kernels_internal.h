// Host-side plumbing shared by the CUDA backend's kernel files: the
// specialized launch paths that kernels.cu's public launchers try first
// (each returns false, launching nothing, when a launch does not fit it),
// the switch and counters of kernels.h, and dim coalescing. Not part of
// the backend's interface (kernels.h is).
#pragma once

#include <cstdint>

#include "exec/cuda/kernels.h"

namespace fc::exec::cuda::kern {

// kernels_pointwise.cu: a program of a catalogued shape, float compute,
// fewer than 2^31 elements (see there).
bool launchPointwiseFast(const PwProgram& p, int64_t n, void* stream);
// kernels_reduce.cu: row (reduced dims contiguous innermost) and column
// (kept innermost dim contiguous) reductions of Half / BFloat16 / Float /
// Double inputs with fewer than 2^31 elements.
bool launchReduceFast(const ReduceArgs& a, void* stream);
// launchRingReduce's arguments as its kernels take them (R <= 64; dst[r]
// is dst[0] for every r unless all ranks receive the result).
struct RingArgs {
  const void* src[64];
  void* dst[64];
  int R;
  int64_t count;
  DType dtype;
  OpKind op;
  bool all;
  int root;
};
// kernels_reduce.cu: the ring for Half / BFloat16 / Float / Double buffers.
bool launchRingFast(const RingArgs& a, void* stream);

bool specializedEnabled();

enum class Path : uint8_t {
  PwInterpreter,
  PwVector,
  PwScalar,
  PwTiled,
  PwFusedRing,
  ReduceRow,
  ReduceColumn,
  ReduceGeneral,
  RingVector,
  RingScalar,
  RingGeneral,
};
void countLaunch(Path p);

// Multiprocessors of the current device (cached per device).
int smCount();

// Merges adjacent dims of `shape` (outermost first, `rank` <= kMaxRank
// dims) that are contiguous in each of the `n_sets` stride sets
// (strides[s][d] == strides[s][d+1] * shape[d+1]) and drops dims of size 1.
// Writes the result innermost first: out_shape[k], out_strides[s][k].
// Returns the new rank (0 when every dim has size 1). O(rank * n_sets).
int coalesce(int rank, const int64_t* shape, const int64_t* const* strides, int n_sets, int64_t* out_shape,
             int64_t (*out_strides)[kMaxRank]);

}  // namespace fc::exec::cuda::kern
