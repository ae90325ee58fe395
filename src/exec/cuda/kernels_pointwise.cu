// Specialized pointwise kernels: launchPointwise's first choice (kernels.h).
//
// A PwProgram is turned into a tree (Set / SegmentSet / Cast instructions
// fold into the roundings of the value they copy; a value used twice is
// evaluated twice) and matched against a catalog of tree shapes whose ops
// are template parameters: copy/cast, unary, binary / compare, where,
// where(compare), activation(binary) and binary(binary) chains, each over
// operands that are a leaf or a constant with up to two roundings. A match
// launches fastPwKernel<Shape>: float compute, every node rounded to its
// dtypes exactly as the interpreter does (same op functors,
// kernels_device.cuh), 32-bit index math over at most 4 coalesced dims,
// registers only. When the innermost coalesced dim is a multiple of 8 (or
// the whole index space is one dim) and every leaf read along it is
// contiguous and 16-byte aligned (or broadcast along it), each thread
// handles groups of 8 consecutive elements with 16-byte loads and stores;
// the rest (a tail, or every element when not vectorizable) is scalar.
// Copy, unary and binary programs with one or two operands read transposed
// (stride 1 along the output's second dim) take the tiled kernel, which
// stages those through shared memory; a plain copy of one transposed
// operand takes the register-transposing kernel of kernels_transpose.cu.
// Before the catalog: transcendental unary ops of a contiguous Half /
// BFloat16 leaf rounded to its dtype are looked up in tables of the CPU's
// fp64 values (kernels_tables.cu: bit for bit the CPU executor's, where
// the float evaluation may be an ulp or more off), and add / sub / mul of
// Half values with an optional relu / neg / abs run in packed Half
// arithmetic (kernels_half2.cu, the same values). The root's last rounding
// is dropped when it is to the output dtype (the store rounds the same
// way), and flat indices are split with IntDiv. The tiled kernel's grid
// is one wave of resident blocks (gridResident). Programs with a ring leaf
// (launchPointwiseFused) match a smaller catalog that computes the ring
// in the kernel. Not matched (fp64 programs, fp8 / integer dtypes, other
// shapes or ops, more than 4 operands, 2^31 elements or more): the general
// interpreter.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"
#include "exec/dtype_convert.h"

namespace fc::exec::cuda::kern {
namespace {

constexpr int kFR = 4;  // dims after coalescing
constexpr int kFO = 4;  // operand slots
constexpr int kFN = 4;  // op nodes
constexpr int kV = 8;   // elements per vector group

struct FOperand {
  const void* data = nullptr;
  double value = 0;            // a constant, converted to float in the kernel as the interpreter does
  uint32_t strides[kFR] = {};  // elements, innermost dim first
  DType dtype = DType::Float;
  bool is_const = false;
  bool is_ring = false;  // the program's ring leaf (FArgs::ring; data null)
  uint8_t n_rounds = 0;
  DType rounds[2] = {};  // applied after the load (folded casts)
};

// The ring leaf of a fused program (kernels.h RingLeaf); its dtype is the
// operand's.
struct FRing {
  const void* src[kMaxRingRanks] = {};
  uint32_t bound[kMaxRingRanks + 1] = {};  // chunk c is [bound[c], bound[c + 1]): bound[c] = c * count / R
  int R = 0;
  OpKind op = OpKind::Sum;
};

// How an expression reads its operands (Opnd::eval).
constexpr int kModePlain = 0, kModeRing = 1, kModeTiled = 2;
constexpr int kTile = 64;  // the tiled kernel's tile edge

struct FNode {
  uint8_t n_rounds = 0;
  DType rounds[3] = {};  // the op's dtype, then folded casts of its result
  bool approx = false;
};

struct FArgs {
  int rank = 1;
  uint32_t shape[kFR] = {};  // innermost dim first
  IntDiv div[kFR];           // shape[k] as divisors of flat indices
  uint32_t n = 0;
  uint32_t n_groups = 0;  // vector groups of kV elements; 0: every element scalar
  FOperand ops[kFO];
  FNode nodes[kFN];
  void* out = nullptr;  // contiguous
  DType out_dtype = DType::Float;
  FRing ring;
};

// ------------------------------------------------------------ device side

// roundTo<float> for the dtypes admitted here (Float: identity). (Packed
// conversions, cvt.rn.f16x2.f32 and back, measured slower here than one
// conversion per element: 0.106 against 0.092 ms for relu(bias add).)
template <int V>
__device__ __forceinline__ void roundAll(DType t, float (&r)[V]) {
  switch (t) {
    case DType::Half:
#pragma unroll
      for (int v = 0; v < V; ++v) r[v] = __half2float(__float2half_rn(r[v]));
      return;
    case DType::BFloat16:
#pragma unroll
      for (int v = 0; v < V; ++v) r[v] = __bfloat162float(__float2bfloat16_rn(r[v]));
      return;
    case DType::Bool:
#pragma unroll
      for (int v = 0; v < V; ++v) r[v] = r[v] != 0 ? 1.0f : 0.0f;
      return;
    default: return;
  }
}

// loadT<float> for the admitted dtypes.
__device__ __forceinline__ float loadF(const void* p, DType t, uint32_t i) {
  switch (t) {
    case DType::Half: return __half2float(static_cast<const __half*>(p)[i]);
    case DType::BFloat16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::Bool: return static_cast<const uint8_t*>(p)[i] != 0 ? 1.0f : 0.0f;
    default: return static_cast<const float*>(p)[i];
  }
}

// storeT<float> for the admitted dtypes.
__device__ __forceinline__ void storeF(void* p, DType t, uint32_t i, float x) {
  switch (t) {
    case DType::Half: static_cast<__half*>(p)[i] = __float2half_rn(x); return;
    case DType::BFloat16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(x); return;
    case DType::Bool: static_cast<uint8_t*>(p)[i] = x != 0 ? 1 : 0; return;
    default: static_cast<float*>(p)[i] = x; return;
  }
}

__device__ __forceinline__ float halfBits(uint32_t b, bool bf16) {
  const auto s = static_cast<unsigned short>(b & 0xffffu);
  return bf16 ? __bfloat162float(__ushort_as_bfloat16(s)) : __half2float(__ushort_as_half(s));
}

// Two floats rounded to a packed pair of 16-bit values (x in the low half).
__device__ __forceinline__ uint32_t toHalfPair(float x, float y, bool bf16) {
  if (bf16) {
    const __nv_bfloat162 h = __float22bfloat162_rn(make_float2(x, y));
    return static_cast<uint32_t>(__bfloat16_as_ushort(h.x)) | static_cast<uint32_t>(__bfloat16_as_ushort(h.y))
                                                                  << 16;
  }
  const __half2 h = __float22half2_rn(make_float2(x, y));
  return static_cast<uint32_t>(__half_as_ushort(h.x)) | static_cast<uint32_t>(__half_as_ushort(h.y)) << 16;
}

// kV elements from element i (16-byte aligned for 2- and 4-byte dtypes).
__device__ __forceinline__ void loadVec(const void* p, DType t, uint32_t i, float (&x)[kV]) {
  switch (t) {
    case DType::Half:
    case DType::BFloat16: {
      const uint4 u = *reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(p) + i);
      const bool bf = t == DType::BFloat16;
      const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        x[2 * k] = halfBits(w[k], bf);
        x[2 * k + 1] = halfBits(w[k] >> 16, bf);
      }
      return;
    }
    case DType::Bool: {
      const uint2 u = *reinterpret_cast<const uint2*>(static_cast<const uint8_t*>(p) + i);
#pragma unroll
      for (int k = 0; k < 8; ++k) x[k] = ((k < 4 ? u.x : u.y) >> (8 * (k % 4)) & 0xffu) != 0 ? 1.0f : 0.0f;
      return;
    }
    default: {
      const float4* q = reinterpret_cast<const float4*>(static_cast<const float*>(p) + i);
      const float4 a = q[0], b = q[1];
      x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = a.w;
      x[4] = b.x, x[5] = b.y, x[6] = b.z, x[7] = b.w;
      return;
    }
  }
}

__device__ __forceinline__ void storeVec(void* p, DType t, uint32_t i, const float (&x)[kV]) {
  switch (t) {
    case DType::Half:
    case DType::BFloat16: {
      const bool bf = t == DType::BFloat16;
      uint32_t w[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) w[k] = toHalfPair(x[2 * k], x[2 * k + 1], bf);
      *reinterpret_cast<uint4*>(static_cast<uint16_t*>(p) + i) = make_uint4(w[0], w[1], w[2], w[3]);
      return;
    }
    case DType::Bool: {
      uint32_t w[2] = {0, 0};
#pragma unroll
      for (int k = 0; k < 8; ++k) w[k / 4] |= (x[k] != 0 ? 1u : 0u) << (8 * (k % 4));
      *reinterpret_cast<uint2*>(static_cast<uint8_t*>(p) + i) = make_uint2(w[0], w[1]);
      return;
    }
    default: {
      float4* q = reinterpret_cast<float4*>(static_cast<float*>(p) + i);
      q[0] = make_float4(x[0], x[1], x[2], x[3]);
      q[1] = make_float4(x[4], x[5], x[6], x[7]);
      return;
    }
  }
}

// Offsets of the first NO operands at output element `flat`.
template <int NO>
__device__ __forceinline__ void offsetsAt(const FArgs& a, uint32_t flat, uint32_t (&off)[NO]) {
#pragma unroll
  for (int o = 0; o < NO; ++o) off[o] = 0;
  forEachIndexDiv<kFR>(a.rank, a.div, flat, [&](int k, uint32_t i) {
#pragma unroll
    for (int o = 0; o < NO; ++o) off[o] += i * a.ops[o].strides[k];
  });
}

// V values of an operand: V == 1 one element; V == kV a group along the
// innermost dim (contiguous, or broadcast along it).
template <int V>
__device__ __forceinline__ void loadOperand(const FOperand& o, const void* data, uint32_t off,
                                            float (&r)[V]) {
  if (o.is_const) {
    const float c = static_cast<float>(o.value);
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = c;
  } else if (V == 1 || o.strides[0] == 0) {
    const float x = loadF(data, o.dtype, off);
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = x;
  } else {
    if constexpr (V == kV) loadVec(data, o.dtype, off, r);
  }
#pragma unroll
  for (int k = 0; k < 2; ++k)
    if (k < o.n_rounds) roundAll(o.rounds[k], r);
}

// ------------------------------------------------------------ the ring leaf
//
// The hop arithmetic is float: for two Half / BFloat16 / Float values the
// float sum and product, rounded to the dtype, equal the fp64 ones the
// ring kernels round (a float result rounded again to Half or BFloat16
// is a double rounding that cannot differ from one rounding: float has at
// least 2p + 2 bits for their p), and max / min are exact.

__device__ __forceinline__ float combineF(OpKind op, float acc, float v) {
  switch (op) {
    case OpKind::Prod: return __fmul_rn(acc, v);
    case OpKind::Max: return (isnan(v) || isnan(acc)) ? NAN : (v > acc ? v : acc);
    case OpKind::Min: return (isnan(v) || isnan(acc)) ? NAN : (v < acc ? v : acc);
    default: return __fadd_rn(acc, v);
  }
}

// The chunk of the ring's result holding element i: the largest c with
// c * count / R <= i (kernels.h launchRingReduce).
__device__ __forceinline__ int ringChunk(const FRing& g, uint32_t i) {
  int c = 0;
#pragma unroll
  for (int k = 1; k < kMaxRingRanks; ++k)
    if (k < g.R && g.bound[k] <= i) c = k;
  return c;
}

// V consecutive elements of the ring's result from element i, all in one
// chunk (V == kV: the sources 16-byte aligned at i).
// Two ranks, Sum or Prod: every chunk's ring is one hop over the same two
// values and IEEE addition and multiplication commute, so the ring order
// does not matter. (Max and min of +0 and -0 keep the first operand: they
// take the ordered path.)
template <int V>
__device__ __forceinline__ void ringValues2(const FRing& g, DType t, uint32_t i, float (&acc)[V]) {
  float x[V];
  if constexpr (V == 1) {
    acc[0] = loadF(g.src[0], t, i);
    x[0] = loadF(g.src[1], t, i);
  } else {
    loadVec(g.src[0], t, i, acc);
    loadVec(g.src[1], t, i, x);
  }
  if (g.op == OpKind::Sum) {
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = __fadd_rn(acc[v], x[v]);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = __fmul_rn(acc[v], x[v]);
  }
  roundAll(t, acc);
}

template <int V>
__device__ __forceinline__ void ringValues(const FRing& g, DType t, int chunk, uint32_t i, float (&acc)[V]) {
  const int start = chunk + 1 == g.R ? 0 : chunk + 1;
  if constexpr (V == 1)
    acc[0] = loadF(g.src[start], t, i);
  else
    loadVec(g.src[start], t, i, acc);
  for (int h = 1; h < g.R; ++h) {
    const int r = start + h < g.R ? start + h : start + h - g.R;
    float x[V];
    if constexpr (V == 1)
      x[0] = loadF(g.src[r], t, i);
    else
      loadVec(g.src[r], t, i, x);
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = combineF(g.op, acc[v], x[v]);
    roundAll(t, acc);
  }
}

// loadOperand for the ring leaf (its folded casts applied after).
template <int V>
__device__ __forceinline__ void loadRing(const FArgs& a, const FOperand& o, uint32_t off, float (&r)[V]) {
  const FRing& g = a.ring;
  if (g.R == 2 && (g.op == OpKind::Sum || g.op == OpKind::Prod)) {
    if (V == 1 || o.strides[0] == 0) {
      float x[1];
      ringValues2<1>(g, o.dtype, off, x);
#pragma unroll
      for (int v = 0; v < V; ++v) r[v] = x[0];
    } else {
      ringValues2<V>(g, o.dtype, off, r);
    }
  } else if (V == 1 || o.strides[0] == 0) {
    float x[1];
    ringValues<1>(g, o.dtype, ringChunk(g, off), off, x);
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = x[0];
  } else if constexpr (V == kV) {
    const int c = ringChunk(g, off);
    if (c == ringChunk(g, off + kV - 1)) {
      ringValues<kV>(g, o.dtype, c, off, r);
    } else {  // a chunk boundary inside the group
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        float x[1];
        ringValues<1>(g, o.dtype, ringChunk(g, off + v), off + v, x);
        r[v] = x[0];
      }
    }
  }
#pragma unroll
  for (int k = 0; k < 2; ++k)
    if (k < o.n_rounds) roundAll(o.rounds[k], r);
}

template <int V>
__device__ __forceinline__ void roundNode(const FNode& nd, float (&r)[V]) {
#pragma unroll
  for (int k = 0; k < 3; ++k)
    if (k < nd.n_rounds) roundAll(nd.rounds[k], r);
}

// ------------------------------------------------------------ host-side tree

constexpr int kMaxTree = 16;

struct HNode {
  bool operand = false;
  int leaf = -1;  // operand: leaf index, -1 for a constant
  double value = 0;
  OpKind op = OpKind::Set;
  bool approx = false;
  uint8_t n_rounds = 0;
  DType rounds[3] = {};
  uint8_t n_kids = 0;
  int kids[3] = {};
};

struct HTree {
  HNode nodes[kMaxTree];
  int n = 0;
};

// Leaf strides after coalescing, innermost first.
struct Plan {
  const PwProgram* p = nullptr;
  int64_t strides[kMaxLeaves][kMaxRank] = {};
};

bool fastDType(DType t) {
  return t == DType::Half || t == DType::BFloat16 || t == DType::Float || t == DType::Bool;
}

// Appends rounding to `t` (Float is the identity in float compute).
bool addRound(HNode& h, DType t, int cap) {
  if (!fastDType(t)) return false;
  if (t == DType::Float) return true;
  if (h.n_rounds >= cap) return false;
  h.rounds[h.n_rounds++] = t;
  return true;
}

// The tree of operand `r` of an instruction before `below`; -1 when it
// does not fit (unsupported dtype, too many nodes or roundings, bad ref).
int build(const PwProgram& p, const PwRef& r, int below, HTree& t) {
  if (t.n >= kMaxTree) return -1;
  if (r.kind != PwRef::Reg) {
    bool leaf = r.kind == PwRef::Leaf;
    if (leaf && (r.index >= p.n_leaves || !fastDType(p.leaves[r.index].dtype))) return -1;
    HNode& h = t.nodes[t.n] = HNode{};
    h.operand = true;
    h.leaf = leaf ? r.index : -1;
    h.value = r.value;
    return t.n++;
  }
  if (r.index >= below) return -1;
  const PwInstr& in = p.instrs[r.index];
  if (in.op == OpKind::Set || in.op == OpKind::SegmentSet || in.op == OpKind::Cast) {
    if (in.nargs != 1) return -1;
    int k = build(p, in.args[0], r.index, t);
    if (k < 0) return -1;
    return addRound(t.nodes[k], in.round_to, t.nodes[k].operand ? 2 : 3) ? k : -1;
  }
  if (in.nargs < 1 || in.nargs > 3) return -1;
  int h = t.n++;
  t.nodes[h] = HNode{};
  t.nodes[h].op = in.op;
  t.nodes[h].approx = in.approx_tanh;
  t.nodes[h].n_kids = in.nargs;
  if (!addRound(t.nodes[h], in.round_to, 3)) return -1;
  for (int j = 0; j < in.nargs; ++j) {
    int k = build(p, in.args[j], r.index, t);
    if (k < 0) return -1;
    t.nodes[h].kids[j] = k;
  }
  return h;
}

void setNode(FNode& f, const HNode& h) {
  f.n_rounds = h.n_rounds;
  for (int k = 0; k < 3; ++k) f.rounds[k] = h.rounds[k];
  f.approx = h.approx;
}

// ------------------------------------------------------------ tree shapes
//
// Each shape: kOps operand slots and kNodes op nodes, numbered left to
// right (operands) and in post-order (nodes) from the bases O and N;
// eval<O, N, V> computes V values, match fills the slots from a tree.

struct Opnd {
  static constexpr int kOps = 1, kNodes = 0;
  // kMode kModeRing: the operand may be the ring leaf (fused kernels);
  // kModeTiled with V > 1: a staged operand (stride > 1 along the
  // innermost dim) is read from shared memory, element v at off + v kTile.
  template <int O, int N, int V, int kMode>
  __device__ __forceinline__ static void eval(const FArgs& a, const uint32_t* off, const void* const* base,
                                              float (&r)[V]) {
    const FOperand& x = a.ops[O];
    if constexpr (kMode == kModeRing) {
      if (x.is_ring) {
        loadRing<V>(a, x, off[O], r);
        return;
      }
    }
    if constexpr (kMode == kModeTiled && V > 1) {
      if (!x.is_const && x.strides[0] > 1) {  // rows off / kTile + v: the same chunk swizzle
#pragma unroll
        for (int v = 0; v < V; ++v) r[v] = loadF(base[O], x.dtype, off[O] + v * kTile);
#pragma unroll
        for (int k = 0; k < 2; ++k)
          if (k < x.n_rounds) roundAll(x.rounds[k], r);
        return;
      }
    }
    // base[] only in the tiled kernel (shared-memory tiles); elsewhere the
    // operand's own pointer, read from the kernel's parameters where used.
    loadOperand<V>(x, kMode == kModeTiled ? base[O] : x.data, off[O], r);
  }
  static bool match(const HTree& t, int h, const Plan& pl, FArgs& a, int O, int) {
    const HNode& n = t.nodes[h];
    if (!n.operand) return false;
    FOperand& x = a.ops[O] = FOperand{};
    x.is_const = n.leaf < 0;
    x.value = n.value;
    if (!x.is_const) {
      const LeafView& l = pl.p->leaves[n.leaf];
      x.data = l.data;
      x.dtype = l.dtype;
      for (int k = 0; k < kFR; ++k) x.strides[k] = static_cast<uint32_t>(pl.strides[n.leaf][k]);
      x.is_ring = n.leaf == pl.p->ring_leaf;
    }
    x.n_rounds = n.n_rounds;
    x.rounds[0] = n.rounds[0];
    x.rounds[1] = n.rounds[1];
    return true;
  }
};

// An op node whose children are `Kids` (1 to 3) and op functor F.
template <class F, class... Kids>
struct OpNode {
  static constexpr int kOps = (Kids::kOps + ...), kNodes = (Kids::kNodes + ...) + 1;

  template <int O, int N, int V, int kMode>
  __device__ __forceinline__ static void eval(const FArgs& a, const uint32_t* off, const void* const* base,
                                              float (&r)[V]) {
    float x[3][V] = {};  // operands an op does not take stay 0, as in the interpreter
    evalKids<O, N, V, kMode, 0, Kids...>(a, off, base, x);
    constexpr int me = N + kNodes - 1;
    const bool approx = a.nodes[me].approx;
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = F::f(x[0][v], x[1][v], x[2][v], approx);
    roundNode(a.nodes[me], r);
  }
  static bool match(const HTree& t, int h, const Plan& pl, FArgs& a, int O, int N) {
    const HNode& n = t.nodes[h];
    if (n.operand || n.op != F::kKind || n.n_kids != sizeof...(Kids)) return false;
    if (!matchKids<0, Kids...>(t, n, pl, a, O, N)) return false;
    setNode(a.nodes[N + kNodes - 1], n);
    return true;
  }

 private:
  template <int O, int N, int V, int kMode, int J, class K, class... Rest>
  __device__ __forceinline__ static void evalKids(const FArgs& a, const uint32_t* off,
                                                  const void* const* base, float (&x)[3][V]) {
    K::template eval<O, N, V, kMode>(a, off, base, x[J]);
    if constexpr (sizeof...(Rest) > 0)
      evalKids<O + K::kOps, N + K::kNodes, V, kMode, J + 1, Rest...>(a, off, base, x);
  }
  template <int J, class K, class... Rest>
  static bool matchKids(const HTree& t, const HNode& n, const Plan& pl, FArgs& a, int O, int N) {
    if (!K::match(t, n.kids[J], pl, a, O, N)) return false;
    if constexpr (sizeof...(Rest) > 0)
      return matchKids<J + 1, Rest...>(t, n, pl, a, O + K::kOps, N + K::kNodes);
    return true;
  }
};

template <class E, int kMode>
__global__ void __launch_bounds__(kThreads) fastPwKernel(const FArgs a) {
  static_assert(E::kOps <= kFO && E::kNodes <= kFN, "shape beyond the argument slots");
  constexpr int NO = E::kOps;
  const void* const* base = nullptr;  // operands are read through a.ops[o].data
  const uint32_t step = gridDim.x * blockDim.x;
  const uint32_t t0 = blockIdx.x * blockDim.x + threadIdx.x;
  // (Two groups per iteration, both evaluated before either is stored,
  // measured slower: 0.126 against 0.107 ms for an add of halves.)
  for (uint32_t g = t0; g < a.n_groups; g += step) {
    uint32_t off[NO];
    offsetsAt(a, g * kV, off);
    float r[kV];
    E::template eval<0, 0, kV, kMode>(a, off, base, r);
    storeVec(a.out, a.out_dtype, g * kV, r);
  }
  for (uint32_t i = a.n_groups * kV + t0; i < a.n; i += step) {
    uint32_t off[NO];
    offsetsAt(a, i, off);
    float r[1];
    E::template eval<0, 0, 1, kMode>(a, off, base, r);
    storeF(a.out, a.out_dtype, i, r[0]);
  }
}

// Tiled: operands read along the output's second dim (stride 1 there, a
// transposed or permuted leaf) are staged through shared memory a tile of
// kTile x kTile at a time, read coalesced along their own contiguous dim;
// the output and the other operands are then read and written coalesced
// along the innermost dim. Tiles cover dims 0 and 1; dims 2 and 3 (after
// coalescing) are batch. Two ways through a tile:
//  - vec (the innermost dim a multiple of kV, the output and the other
//    operands vectorizable): the tile is staged as it lies in memory
//    (16-byte loads and stores when `vec_load`), and each thread computes
//    kV consecutive outputs of one column, gathering the staged operand
//    down a tile column (a warp reads 32 consecutive columns: no bank
//    conflicts), and stores them with one 16-byte store;
//  - scalar: one output per thread along the innermost dim, the staged
//    tile read down its rows with a padded pitch (odd word stride).
constexpr int kMaxStaged = 2;
constexpr int kStageBytes = kTile * (kTile + 1) * 4;  // the largest pitch x element size

__device__ __forceinline__ uint32_t stagePitch(DType t) {
  return t == DType::Float ? kTile + 1 : t == DType::Bool ? kTile + 4 : kTile + 2;  // odd word stride
}
__device__ __forceinline__ uint32_t elemBytes(DType t) {
  return t == DType::Float ? 4 : t == DType::Bool ? 1 : 2;
}
// vec layout: row ii of the tile holds its kTile elements in 16-byte
// chunks whose order is XORed with (ii / 8) mod 8, so that the 8 rows a
// warp's column reads touch (8 ii-groups, 4 columns) fall in distinct
// banks while a row's chunks stay whole for 16-byte stores.
__device__ __forceinline__ uint32_t swizzled(uint32_t ii, uint32_t jj, uint32_t es) {
  const uint32_t per = 16 / es, mask = (kTile / per - 1) & 7u;
  return ii * kTile + (((jj / per) ^ ((ii / 8) & mask)) * per) + jj % per;
}

template <class E>
__global__ void __launch_bounds__(kThreads)
    tiledPwKernel(const FArgs a, uint32_t staged, uint32_t tiles_x, uint32_t tiles_y, uint32_t n_tiles,
                  bool vec, bool vec_load) {
  static_assert(E::kOps <= kFO && E::kNodes <= kFN, "shape beyond the argument slots");
  constexpr int NO = E::kOps;
  __shared__ __align__(16) unsigned char stage[kMaxStaged][kStageBytes];
  const uint32_t n0 = a.shape[0], n1 = a.rank > 1 ? a.shape[1] : 1;
  for (uint32_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
    const uint32_t tx = tile % tiles_x, rest = tile / tiles_x;
    const uint32_t i0 = tx * kTile, j0 = (rest % tiles_y) * kTile, b = rest / tiles_y;
    const uint32_t origin = (b * n1 + j0) * n0 + i0;
    uint32_t org[NO];
    offsetsAt(a, origin, org);
    const void* base[NO];
    uint32_t pitch[NO];
    int slot = 0;
#pragma unroll
    for (int o = 0; o < NO; ++o) {
      base[o] = a.ops[o].data;
      pitch[o] = 0;
      if (!(staged >> o & 1u)) continue;
      const FOperand& x = a.ops[o];
      unsigned char* st = stage[slot++];
      const uint32_t p = vec ? kTile : stagePitch(x.dtype), s0 = x.strides[0], es = elemBytes(x.dtype);
      const unsigned char* src = static_cast<const unsigned char*>(x.data);
      if (vec_load) {  // 16 bytes at a time along the contiguous dim
        const uint32_t per = 16 / es, groups = kTile / per;
#pragma unroll 2
        for (uint32_t e = threadIdx.x; e < kTile * groups; e += blockDim.x) {
          const uint32_t jj = (e % groups) * per, ii = e / groups;
          if (i0 + ii >= n0 || j0 + jj >= n1) continue;
          *reinterpret_cast<uint4*>(st + swizzled(ii, jj, es) * es) =
              *reinterpret_cast<const uint4*>(src + (static_cast<uint64_t>(org[o]) + ii * s0 + jj) * es);
        }
      } else {
#pragma unroll 4
        for (uint32_t e = threadIdx.x; e < kTile * kTile; e += blockDim.x) {
          const uint32_t jj = e % kTile, ii = e / kTile;
          if (i0 + ii >= n0 || j0 + jj >= n1) continue;
          const uint32_t from = org[o] + ii * s0 + jj, to = vec ? swizzled(ii, jj, es) : ii * p + jj;
          if (es == 4)
            reinterpret_cast<float*>(st)[to] = reinterpret_cast<const float*>(src)[from];
          else if (es == 1)
            st[to] = src[from];
          else
            reinterpret_cast<uint16_t*>(st)[to] = reinterpret_cast<const uint16_t*>(src)[from];
        }
      }
      base[o] = st;
      pitch[o] = p;
    }
    __syncthreads();
    if (vec) {
#pragma unroll 2
      for (uint32_t e = threadIdx.x; e < kTile * (kTile / kV); e += blockDim.x) {
        // a warp: 8 groups of kV along ii (one 128-byte row segment of the
        // output for 16-bit outputs) times 4 columns jj
        const uint32_t ii = (e % (kTile / kV)) * kV, jj = e / (kTile / kV);
        if (i0 + ii >= n0 || j0 + jj >= n1) continue;
        uint32_t off[NO];
#pragma unroll
        for (int o = 0; o < NO; ++o)
          off[o] = pitch[o] ? swizzled(ii, jj, elemBytes(a.ops[o].dtype))
                            : org[o] + ii * a.ops[o].strides[0] + jj * a.ops[o].strides[1];
        float r[kV];
        E::template eval<0, 0, kV, kModeTiled>(a, off, base, r);
        storeVec(a.out, a.out_dtype, origin + jj * n0 + ii, r);
      }
    } else {
#pragma unroll 4
      for (uint32_t e = threadIdx.x; e < kTile * kTile; e += blockDim.x) {
        const uint32_t ii = e % kTile, jj = e / kTile;
        if (i0 + ii >= n0 || j0 + jj >= n1) continue;
        uint32_t off[NO];
#pragma unroll
        for (int o = 0; o < NO; ++o)
          off[o] =
              pitch[o] ? ii * pitch[o] + jj : org[o] + ii * a.ops[o].strides[0] + jj * a.ops[o].strides[1];
        float r[1];
        E::template eval<0, 0, 1, kModeTiled>(a, off, base, r);
        storeF(a.out, a.out_dtype, origin + jj * n0 + ii, r[0]);
      }
    }
    __syncthreads();
  }
}

// ------------------------------------------------------------ catalog

struct Ctx {
  HTree tree;
  int root = -1;
  Plan plan;
  FArgs base;
  cudaStream_t stream = nullptr;
};

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

bool vectorizable(const FArgs& a, int n_ops) {
  if (!aligned16(a.out)) return false;
  if (a.rank > 1 && a.shape[0] % kV != 0) return false;
  for (int o = 0; o < n_ops; ++o) {
    const FOperand& x = a.ops[o];
    if (x.is_const || x.strides[0] == 0) continue;
    if (x.is_ring)
      for (int r = 0; r < a.ring.R; ++r)
        if (!aligned16(a.ring.src[r])) return false;
    if (x.strides[0] != 1 || !aligned16(x.data)) return false;
    for (int k = 1; k < a.rank; ++k)
      if (x.strides[k] % kV != 0) return false;
  }
  return true;
}

// Operands to stage for the tiled kernel (bit o: slot o), or 0.
template <class E>
uint32_t stagedOperands(const FArgs& a) {
  if (a.rank < 2) return 0;
  uint32_t mask = 0;
  int n = 0;
  for (int o = 0; o < E::kOps; ++o) {
    const FOperand& x = a.ops[o];
    if (x.is_const || x.strides[0] == 0 || x.strides[0] == 1 || x.strides[1] != 1) continue;
    mask |= 1u << o;
    ++n;
  }
  return n <= kMaxStaged ? mask : 0;
}

// A copy of one operand read transposed, without conversion (its dtype is
// the output's and its roundings are to that dtype): kernels_transpose.cu,
// when the shape suits it.
bool tryTransposeCopy(const FArgs& a, cudaStream_t s) {
  const FOperand& x = a.ops[0];
  if (x.is_const || x.is_ring || x.dtype != a.out_dtype || a.rank < 2) return false;
  if (x.dtype != DType::Half && x.dtype != DType::BFloat16 && x.dtype != DType::Float) return false;
  for (int k = 0; k < x.n_rounds; ++k)
    if (x.rounds[k] != x.dtype) return false;
  TransposeArgs t;
  t.src = x.data;
  t.dst = a.out;
  t.elem_bytes = x.dtype == DType::Float ? 4 : 2;
  t.n0 = a.shape[0];
  t.n1 = a.shape[1];
  t.n2 = a.rank > 2 ? a.shape[2] : 1;
  t.n3 = a.rank > 3 ? a.shape[3] : 1;
  t.s0 = x.strides[0];
  t.s2 = a.rank > 2 ? x.strides[2] : 0;
  t.s3 = a.rank > 3 ? x.strides[3] : 0;
  return launchTranspose(t, s);
}

// Launches shape E when the tree matches it. kTiled: programs with
// transposed operands take the tiled kernel (instantiated for the copy,
// unary and binary shapes only, to bound the kernel count). kRing: the
// program has a ring leaf (the fused catalog).
template <class E, bool kTiled = false, bool kRing = false>
bool tryShape(const Ctx& c) {
  FArgs a = c.base;
  if (!E::match(c.tree, c.root, c.plan, a, 0, 0)) return false;
  if constexpr (kTiled) {
    if (uint32_t staged = stagedOperands<E>(a)) {
      if constexpr (std::is_same_v<E, Opnd>)
        if (staged == 1u && tryTransposeCopy(a, c.stream)) return true;
      const uint32_t n0 = a.shape[0], n1 = a.shape[1];
      const uint32_t tx = (n0 + kTile - 1) / kTile, ty = (n1 + kTile - 1) / kTile;
      const uint64_t tiles = uint64_t{tx} * ty * (a.n / (uint64_t{n0} * n1));
      const uint32_t grid = static_cast<uint32_t>(
          std::min<uint64_t>(tiles, static_cast<uint64_t>(residentBlocks(tiledPwKernel<E>, kThreads))));
      // vec: every operand but the staged ones as the vector kernels need
      // them; vec_load: the staged ones read 16 bytes at a time.
      bool vec = aligned16(a.out) && n0 % kV == 0, vec_load = vec && n1 % 16 == 0;
      for (int o = 0; o < E::kOps; ++o) {
        const FOperand& x = a.ops[o];
        if (x.is_const) continue;
        if (staged >> o & 1u) {
          const uint32_t per = x.dtype == DType::Float ? 4 : x.dtype == DType::Bool ? 16 : 8;
          vec_load = vec_load && aligned16(x.data) && x.strides[0] % per == 0;
          for (int k = 2; k < a.rank; ++k) vec_load = vec_load && x.strides[k] % per == 0;
          continue;
        }
        if (x.strides[0] > 1 || (x.strides[0] == 1 && !aligned16(x.data))) vec = false;
        for (int k = 1; k < a.rank && x.strides[0] == 1; ++k) vec = vec && x.strides[k] % kV == 0;
      }
      vec_load = vec_load && vec;
      countLaunch(Path::PwTiled);
      tiledPwKernel<E>
          <<<grid, kThreads, 0, c.stream>>>(a, staged, tx, ty, static_cast<uint32_t>(tiles), vec, vec_load);
      FC_CUDA(cudaGetLastError());
      return true;
    }
  }
  bool vec = vectorizable(a, E::kOps);
  a.n_groups = vec ? a.n / kV : 0;
  countLaunch(kRing ? Path::PwFusedRing : vec ? Path::PwVector : Path::PwScalar);
  // Four waves of blocks (gridFor), not one (gridResident): one wave
  // measured slower for these one-group-per-iteration kernels (add of
  // halves 91.7% against 94.8% of copy, bias add into float 68.6% against
  // 82.5%, in one call).
  fastPwKernel<E, kRing ? kModeRing : kModePlain>
      <<<gridFor(vec ? a.n_groups + a.n % kV : a.n), kThreads, 0, c.stream>>>(a);
  FC_CUDA(cudaGetLastError());
  return true;
}

template <class... Es>
bool tryAll(const Ctx& c) {
  return (tryShape<Es>(c) || ...);
}
template <class... Es>
bool tryAllTiled(const Ctx& c) {
  return (tryShape<Es, true>(c) || ...);
}
template <class... Fs>
bool tryUnary(const Ctx& c) {
  return tryAllTiled<OpNode<Fs, Opnd>...>(c);
}
template <class... Fs>
bool tryBinary(const Ctx& c) {
  return tryAllTiled<OpNode<Fs, Opnd, Opnd>...>(c);
}
template <class... Fs>
bool tryWhereOfCompare(const Ctx& c) {
  return tryAll<OpNode<OpWhere, OpNode<Fs, Opnd, Opnd>, Opnd, Opnd>...>(c);
}
// act(b(x, y)) for each act.
template <class B, class... Acts>
bool tryActivationOf(const Ctx& c) {
  return tryAll<OpNode<Acts, OpNode<B, Opnd, Opnd>>...>(c);
}
// outer(inner(x, y), z) and outer(z, inner(x, y)) for each inner.
template <class Outer, class... Inners>
bool tryChainOf(const Ctx& c) {
  return tryAll<OpNode<Outer, OpNode<Inners, Opnd, Opnd>, Opnd>...,
                OpNode<Outer, Opnd, OpNode<Inners, Opnd, Opnd>>...>(c);
}

template <class... Es>
bool tryAllRing(const Ctx& c) {
  return (tryShape<Es, false, true>(c) || ...);
}

// The fused catalog: the ring's result itself (copy / cast), a binary op
// of it and another operand, and relu / gelu of an add.
bool dispatchRing(const Ctx& c) {
  if (c.tree.nodes[c.root].operand) return tryAllRing<Opnd>(c);
  return tryAllRing<OpNode<OpAdd, Opnd, Opnd>, OpNode<OpSub, Opnd, Opnd>, OpNode<OpMul, Opnd, Opnd>,
                    OpNode<OpDiv, Opnd, Opnd>, OpNode<OpMaximum, Opnd, Opnd>, OpNode<OpMinimum, Opnd, Opnd>,
                    OpNode<OpRelu, OpNode<OpAdd, Opnd, Opnd>>, OpNode<OpGelu, OpNode<OpAdd, Opnd, Opnd>>>(c);
}

bool dispatch(const Ctx& c) {
  if (c.tree.nodes[c.root].operand) return tryAllTiled<Opnd>(c);
  return tryBinary<OpAdd, OpSub, OpMul, OpDiv, OpMaximum, OpMinimum, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe,
                   OpLogicalAnd, OpLogicalOr>(c) ||
         tryUnary<OpNeg, OpAbs, OpExp, OpLog, OpSqrt, OpRsqrt, OpTanh, OpSigmoid, OpRelu, OpGelu, OpSilu,
                  OpReciprocal, OpErf, OpFloor, OpCeil, OpLogicalNot>(c) ||
         tryAll<OpNode<OpWhere, Opnd, Opnd, Opnd>>(c) ||
         tryWhereOfCompare<OpEq, OpNe, OpLt, OpLe, OpGt, OpGe>(c) ||
         tryActivationOf<OpAdd, OpRelu, OpGelu, OpSilu, OpSigmoid, OpTanh>(c) ||
         tryActivationOf<OpMul, OpRelu, OpGelu, OpSilu, OpSigmoid, OpTanh>(c) ||
         tryActivationOf<OpSub, OpRelu, OpGelu, OpSilu, OpSigmoid, OpTanh>(c) ||
         tryChainOf<OpAdd, OpAdd, OpSub, OpMul>(c) || tryChainOf<OpSub, OpAdd, OpSub, OpMul>(c) ||
         tryChainOf<OpMul, OpAdd, OpSub, OpMul>(c);
}

// op(x) for a contiguous Half / BFloat16 leaf x whose result is rounded to
// x's dtype and stored in it, op a transcendental one (unaryTableOp): the
// value is looked up in a table of the op's fp64 value rounded to the
// dtype for each of the 65536 inputs (kernels_tables.cu), which is the
// CPU executor's value, where the float evaluation of the other kernels
// can be an ulp or more off.
bool tryUnaryTable(const PwProgram& p, const Ctx& c, int rank, const int64_t* shape, void* stream) {
  const HNode& r = c.tree.nodes[c.root];
  if (r.operand || r.n_kids != 1 || !unaryTableOp(r.op)) return false;
  const HNode& x = c.tree.nodes[r.kids[0]];
  if (!x.operand || x.leaf < 0 || x.leaf == p.ring_leaf) return false;
  const DType t = p.leaves[x.leaf].dtype;
  if ((t != DType::Half && t != DType::BFloat16) || p.out_dtype != t || r.n_rounds < 1) return false;
  for (int k = 0; k < x.n_rounds; ++k)
    if (x.rounds[k] != t) return false;
  for (int k = 0; k < r.n_rounds; ++k)
    if (r.rounds[k] != t) return false;
  if (rank != 1 || c.plan.strides[x.leaf][0] != 1) return false;
  return launchUnaryTable(r.op, r.approx, t, p.leaves[x.leaf].data, p.out, shape[0], stream);
}

// b(x, y) or act(b(x, y)) over Half values with Half results, vectorized:
// the packed Half kernel (kernels_half2.cu), which gives the same values.
bool tryHalf2(const PwProgram& p, const Ctx& c) {
  if (p.out_dtype != DType::Half) return false;
  const HTree& t = c.tree;
  auto halfOnly = [](const HNode& h) {
    for (int k = 0; k < h.n_rounds; ++k)
      if (h.rounds[k] != DType::Half) return false;
    return true;
  };
  const HNode& root = t.nodes[c.root];
  if (root.operand || !halfOnly(root)) return false;
  OpKind act = OpKind::Set;
  int b = c.root;
  if (root.n_kids == 1) {
    if (root.op != OpKind::Relu && root.op != OpKind::Neg && root.op != OpKind::Abs) return false;
    act = root.op;
    b = root.kids[0];
  }
  const HNode& bin = t.nodes[b];
  if (bin.operand || bin.n_kids != 2 || !halfOnly(bin)) return false;
  if (bin.op != OpKind::Add && bin.op != OpKind::Sub && bin.op != OpKind::Mul) return false;
  FArgs a = c.base;
  for (int j = 0; j < 2; ++j) {
    if (!Opnd::match(t, bin.kids[j], c.plan, a, j, 0)) return false;
    const FOperand& x = a.ops[j];
    if (x.is_ring || !halfOnly(t.nodes[bin.kids[j]])) return false;
    if (x.is_const ? exec::roundTo(DType::Half, x.value) != x.value : x.dtype != DType::Half) return false;
  }
  if (!vectorizable(a, 2)) return false;
  Half2Args h;
  h.rank = a.rank;
  for (int k = 0; k < kFR; ++k) h.div[k] = a.div[k];
  h.n = a.n;
  h.n_groups = a.n / kV;
  for (int j = 0; j < 2; ++j) {
    const FOperand& x = a.ops[j];
    h.ops[j].data = x.data;
    for (int k = 0; k < kFR; ++k) h.ops[j].strides[k] = x.strides[k];
    h.ops[j].is_const = x.is_const;
    if (x.is_const) {
      const auto bits = static_cast<uint32_t>(exec::toBits(DType::Half, x.value));
      h.ops[j].constant = bits | bits << 16;
    }
  }
  h.bin = bin.op;
  h.act = act;
  h.out = p.out;
  return launchHalf2(h, c.stream);
}

}  // namespace

bool launchPointwiseFast(const PwProgram& p, int64_t n, void* stream) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (p.fp64 || n <= 0 || n >= kLimit || p.n_instrs < 1 || p.n_instrs > kMaxInstrs || p.rank < 0 ||
      p.rank > kMaxRank || p.n_leaves < 0 || p.n_leaves > kMaxLeaves || !fastDType(p.out_dtype))
    return false;
  Ctx c;
  c.root = build(p, PwRef{PwRef::Reg, static_cast<uint8_t>(p.n_instrs - 1), 0}, p.n_instrs, c.tree);
  if (c.root < 0) return false;
  const int64_t* sets[kMaxLeaves];
  for (int l = 0; l < p.n_leaves; ++l) sets[l] = p.leaves[l].strides;
  int64_t shape[kMaxRank];
  int rank = coalesce(p.rank, p.shape, sets, p.n_leaves, shape, c.plan.strides);
  if (rank > kFR) return false;
  if (rank == 0) {  // one element
    rank = 1;
    shape[0] = 1;
    for (int l = 0; l < p.n_leaves; ++l) c.plan.strides[l][0] = 0;
  }
  for (int l = 0; l < p.n_leaves; ++l) {
    int64_t max_off = 0;
    for (int k = 0; k < rank; ++k) {
      int64_t s = c.plan.strides[l][k];
      if (s < 0 || s >= kLimit) return false;
      max_off += (shape[k] - 1) * s;
      if (max_off >= kLimit) return false;
    }
  }
  c.plan.p = &p;
  if (p.ring_leaf < 0 && tryUnaryTable(p, c, rank, shape, stream)) return true;
  // The store rounds to the output dtype: a last rounding of the root to
  // that dtype is the same rounding done twice, and is left to the store.
  HNode& top = c.tree.nodes[c.root];
  if (top.n_rounds > 0 && top.rounds[top.n_rounds - 1] == p.out_dtype) --top.n_rounds;
  c.base.rank = rank;
  for (int k = 0; k < rank; ++k) {
    c.base.shape[k] = static_cast<uint32_t>(shape[k]);
    c.base.div[k] = IntDiv(static_cast<uint32_t>(shape[k]));
  }
  c.base.n = static_cast<uint32_t>(n);
  c.base.out = p.out;
  c.base.out_dtype = p.out_dtype;
  c.stream = static_cast<cudaStream_t>(stream);
  if (p.ring_leaf < 0) return tryHalf2(p, c) || dispatch(c);
  const RingLeaf& g = p.ring;
  if (p.ring_leaf >= p.n_leaves) return false;
  DType rt = p.leaves[p.ring_leaf].dtype;
  if (g.R < 1 || g.R > kMaxRingRanks || g.count < 1 || g.count >= kLimit ||
      (rt != DType::Half && rt != DType::BFloat16 && rt != DType::Float))
    return false;
  if (g.op != OpKind::Sum && g.op != OpKind::Prod && g.op != OpKind::Max && g.op != OpKind::Min) return false;
  for (int r = 0; r < g.R; ++r) c.base.ring.src[r] = g.src[r];
  c.base.ring.R = g.R;
  for (int k = 0; k <= g.R; ++k) c.base.ring.bound[k] = static_cast<uint32_t>(k * g.count / g.R);
  c.base.ring.op = g.op;
  return dispatchRing(c);
}

}  // namespace fc::exec::cuda::kern
