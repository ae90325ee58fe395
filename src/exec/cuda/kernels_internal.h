// Host-side plumbing shared by the CUDA backend's kernel files: the
// specialized launch paths that kernels.cu's public launchers try first
// (each returns false, launching nothing, when a launch does not fit it),
// the switch and counters of kernels.h, and dim coalescing. Not part of
// the backend's interface (kernels.h is).
#pragma once

#include <cstddef>
#include <cstdint>

#include "exec/cuda/int_div.h"
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

// kernels_transpose.cu: dst[b3][b2][j][i] = src[b3 s3 + b2 s2 + i s0 + j]
// (element counts), a copy of 2- or 4-byte elements read transposed;
// false, launching nothing, unless every extent and stride is a multiple
// of the elements in 16 bytes and both pointers are 16-byte aligned.
struct TransposeArgs {
  const void* src = nullptr;
  void* dst = nullptr;
  uint32_t elem_bytes = 2;
  uint32_t n0 = 1, n1 = 1, n2 = 1, n3 = 1;  // i, j, then two batch dims
  uint32_t s0 = 0, s2 = 0, s3 = 0;
};
bool launchTranspose(const TransposeArgs& a, void* stream);

// kernels_half2.cu: out (Half, contiguous) = act(bin(x, y)) over two Half
// operands (each a leaf read along the coalesced dims with `strides`, 16
// bytes at a time along dim 0 where strides[0] == 1, broadcast where 0, or
// a constant of Half value); bin Add / Sub / Mul, act Relu / Neg / Abs or
// Set (none). The first n_groups * 8 elements in groups of 8 (dim 0 a
// multiple of 8, pointers 16-byte aligned), the rest one at a time.
struct Half2Args {
  struct Operand {
    const void* data = nullptr;
    uint32_t strides[4] = {};
    uint32_t constant = 0;  // the constant's Half bits, twice
    bool is_const = false;
  };
  int rank = 1;
  IntDiv div[4];
  uint32_t n = 0, n_groups = 0;
  Operand ops[2];
  OpKind bin = OpKind::Add, act = OpKind::Set;
  void* out = nullptr;
};
bool launchHalf2(const Half2Args& a, void* stream);

// kernels_tables.cu: the ops served by lookup tables (transcendental
// unary ops), and out[i] = roundTo(dtype, op(in[i]) in fp64) over n
// contiguous Half / BFloat16 elements through the op's table.
bool unaryTableOp(OpKind op);
bool launchUnaryTable(OpKind op, bool approx, DType dtype, const void* in, void* out, int64_t n,
                      void* stream);
// unary_tables.cpp: table[b] = the dtype's bits of op(value of bits b) in
// fp64 rounded to the dtype (65536 entries; Half / BFloat16).
void fillUnaryTable(OpKind op, bool approx, DType dtype, uint16_t* table);

bool specializedEnabled();

enum class Path : uint8_t {
  PwInterpreter,
  PwVector,
  PwScalar,
  PwTiled,
  PwFusedRing,
  PwTable,
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
// Blocks of `kernel` (a __global__ function) with `threads` threads and
// `smem` dynamic shared bytes resident on the current device at once
// (occupancy per multiprocessor times smCount(); cached per kernel and
// launch shape; at least smCount()).
int residentBlocksOf(const void* kernel, int threads, size_t smem);

// Merges adjacent dims of `shape` (outermost first, `rank` <= kMaxRank
// dims) that are contiguous in each of the `n_sets` stride sets
// (strides[s][d] == strides[s][d+1] * shape[d+1]) and drops dims of size 1.
// Writes the result innermost first: out_shape[k], out_strides[s][k].
// Returns the new rank (0 when every dim has size 1). O(rank * n_sets).
int coalesce(int rank, const int64_t* shape, const int64_t* const* strides, int n_sets, int64_t* out_shape,
             int64_t (*out_strides)[kMaxRank]);

}  // namespace fc::exec::cuda::kern
