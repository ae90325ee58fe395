// Host-callable launchers of the CUDA backend's kernels (kernels.cu). All
// work on device memory in the tensors' native dtypes (Half as __half,
// BFloat16 as __nv_bfloat16, fp8 as __nv_fp8_storage_t, Bool as uint8,
// Int32 / Int / Index as int32 / int64); conversions round to nearest even
// and saturate fp8 like exec/dtype_convert.h, so a value the GPU stores is
// bit-identical to what the CPU executor's roundTo() gives for the same
// fp64 value. Launch errors are checked (cuda_status.h).
//
// Pointwise: one kernel evaluates a whole fused program (a DAG of unary /
// binary / compare / where / cast ops over strided, broadcast leaves): one
// read of every leaf element and one write of the output, coalesced along
// the innermost output dim. Programs of the common shapes (unary, binary,
// compare, cast, where, where(compare), activation(binary), binary(binary)
// over <= 4 leaf or constant operands in Half / BFloat16 / Float / Bool,
// float compute, < 2^31 elements) run in kernels specialized on the shape
// and ops (kernels_pointwise.cu): 32-bit index math, 16-byte loads and
// stores along a contiguous innermost dim; operands read transposed are
// staged through shared memory tiles. Every other program runs in the
// general interpreter (64-bit strides). Both give the same value for every
// element (same op code, same per-op rounding), with one exception:
// exp, log, rsqrt, tanh, sigmoid, gelu, silu and erf of a contiguous Half /
// BFloat16 tensor rounded to its own dtype are looked up in tables of the
// CPU executor's fp64 values, so they are the CPU's values bit for bit,
// and within 2 ulps of the interpreter's float math wherever the result
// is not below 2^-6 in magnitude (there the float math of gelu, silu and
// sigmoid loses more: 1 + erf(x) cancels).
// Reductions: fp64 accumulation; row and column shapes of Half / BFloat16 /
// Float / Double inputs in vectorized warp / block / column kernels
// (kernels_reduce.cu), others one block per output element for long
// reductions, one thread per output for short ones. The ring: one pass,
// every hop of an element in registers. Cost: O(numel) each, memory-bound.
#pragma once

#include <cstdint>

#include "ir/op_kind.h"
#include "ir/types.h"

namespace fc::exec::cuda {

inline constexpr int kMaxRank = 8;
inline constexpr int kMaxLeaves = 8;
inline constexpr int kMaxInstrs = 24;

struct LeafView {
  const void* data = nullptr;
  DType dtype = DType::Float;
  int64_t strides[kMaxRank] = {};  // in elements, in the output's index space (0 = broadcast)
};

// An operand of an instruction: a leaf load, an earlier instruction's
// result, or a constant.
struct PwRef {
  enum Kind : uint8_t { Leaf, Reg, Const } kind = Const;
  uint8_t index = 0;
  double value = 0;
};

struct PwInstr {
  OpKind op = OpKind::Set;  // Set / Cast: copy; Unary, Binary, Compare, Where
  bool approx_tanh = false;
  DType round_to = DType::Float;  // the produced tensor's dtype (faithful rounding)
  uint8_t nargs = 0;
  PwRef args[3];
};

inline constexpr int kMaxRingRanks = 8;

// A simulated Allreduce read as a pointwise leaf: element i of the ring's
// result (`count` elements, contiguous) is what launchRingReduce with
// all_ranks writes at i: the R sources combined in the chunked ring order
// with every hop rounded to the leaf's dtype (Half / BFloat16 / Float).
struct RingLeaf {
  const void* src[kMaxRingRanks] = {};
  int R = 0;
  int64_t count = 0;
  OpKind op = OpKind::Sum;  // Sum, Prod, Max, Min
};

struct PwProgram {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int n_leaves = 0;
  LeafView leaves[kMaxLeaves];
  int n_instrs = 0;
  PwInstr instrs[kMaxInstrs];
  void* out = nullptr;  // contiguous, dtype out_dtype; value = last instruction
  DType out_dtype = DType::Float;
  bool fp64 = false;   // compute in double (else float)
  int ring_leaf = -1;  // >= 0: that leaf (data null) is `ring` (launchPointwiseFused only)
  RingLeaf ring;
};

// Runs `p` over numel(shape) elements on `stream` (cudaStream_t as void*).
void launchPointwise(const PwProgram& p, void* stream = nullptr);

// Runs a program whose leaf ring_leaf is a RingLeaf as one kernel (the
// Allreduce fused into its consumer: the sources are read once, the ring's
// result is never stored). Returns false, launching nothing, when no fused
// kernel fits the program (its shape, dtypes, R > kMaxRingRanks, 2^31
// elements); the caller then materializes the ring first.
bool launchPointwiseFused(const PwProgram& p, void* stream = nullptr);

// out[o] = reduction over the `count` input elements of bucket o.
// The input is viewed as [outer..., reduced...] through `in_strides` of a
// rank-`rank` index space whose first `rank - n_red` dims are kept (output
// row-major, contiguous) and last `n_red` dims are reduced.
struct ReduceArgs {
  const void* in = nullptr;
  DType in_dtype = DType::Float;
  int rank = 0;
  int n_red = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  void* out = nullptr;
  DType out_dtype = DType::Float;
  OpKind op = OpKind::Sum;  // Sum, Prod, Max, Min, Mean
};
void launchReduce(const ReduceArgs& a, void* stream = nullptr);

// Simulated ring reduction of R device buffers of `count` elements of
// `dtype` (docs/numerics.md, exec/communicator.h): chunk c = [c*n/R,
// (c+1)*n/R) is summed starting at rank (c+1) mod R, each hop rounded to
// `dtype`. all_ranks: dst[r] (R pointers) receives the result for every
// rank; else dst[0] receives the result for `root` (whose ring starts at
// (root+1) mod R). src / dst are host arrays of device pointers (R <= 64);
// dst may alias src (in place).
void launchRingReduce(const void* const* src, void* const* dst, int R, int64_t count, DType dtype, OpKind op,
                      bool all_ranks, int root, void* stream = nullptr);

// dst (contiguous, `dst_dtype`) = convert(src viewed with `strides` +
// `offset` over `shape`). Used for materializing views (permute, slice,
// expand) and casts.
void launchStridedCopy(const void* src, DType src_dtype, int64_t offset, const int64_t* strides,
                       const int64_t* shape, int rank, void* dst, DType dst_dtype, void* stream = nullptr);

// dst viewed with `dst_strides` + `dst_offset` over `shape` = convert(src
// viewed with `src_strides` + `src_offset`): a copy between two strided
// views, rounding to `dst_dtype` (pad's interior, cat's blocks). Elements
// of dst outside the view are left as they are.
void launchCopyView(const void* src, DType src_dtype, int64_t src_offset, const int64_t* src_strides,
                    void* dst, DType dst_dtype, int64_t dst_offset, const int64_t* dst_strides,
                    const int64_t* shape, int rank, void* stream = nullptr);

// The number of 4-byte words (and trailing bytes) that differ between two
// device buffers of `bytes` bytes; waits for the result.
int64_t countDifferentWords(const void* a, const void* b, int64_t bytes, void* stream = nullptr);

// Which kernels served the launches since the last reset (process-wide),
// for tests and benchmarks.
struct KernelCounts {
  int64_t pointwise_interpreter = 0, pointwise_vector = 0, pointwise_scalar = 0, pointwise_tiled = 0;
  int64_t pointwise_fused_ring = 0, pointwise_table = 0;
  int64_t reduce_row = 0, reduce_column = 0, reduce_general = 0;
  int64_t ring_vector = 0, ring_scalar = 0, ring_general = 0;
};
KernelCounts kernelCounts();
void resetKernelCounts();
// Specialized kernels on (the default) or off, process-wide: off, every
// launch uses the general kernels (interpreter, strided reductions,
// element-wise ring), the baseline tests and benchmarks compare with.
void setSpecializedKernels(bool on);

// Fills `n` elements: value start + i * step (each operation rounded in
// fp64, as the host computes it), rounded to `dtype`.
void launchIota(void* dst, DType dtype, int64_t n, double start, double step, void* stream = nullptr);

// Uniform values in [-1, 1) from a counter-based hash of (seed, i), rounded
// to `dtype` — inputs for benchmarks (not the CPU executor's generator).
void launchRandom(void* dst, DType dtype, int64_t n, uint64_t seed, void* stream = nullptr);

}  // namespace fc::exec::cuda
