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
// Not matched (fp64 programs, fp8 / integer dtypes, other shapes or ops,
// more than 4 operands, 2^31 elements or more): the general interpreter.
#include <cstdint>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"

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
  uint8_t n_rounds = 0;
  DType rounds[2] = {};  // applied after the load (folded casts)
};

struct FNode {
  uint8_t n_rounds = 0;
  DType rounds[3] = {};  // the op's dtype, then folded casts of its result
  bool approx = false;
};

struct FArgs {
  int rank = 1;
  uint32_t shape[kFR] = {};  // innermost dim first
  uint32_t n = 0;
  uint32_t n_groups = 0;  // vector groups of kV elements; 0: every element scalar
  FOperand ops[kFO];
  FNode nodes[kFN];
  void* out = nullptr;  // contiguous
  DType out_dtype = DType::Float;
};

// ------------------------------------------------------------ device side

// roundTo<float> for the dtypes admitted here (Float: identity).
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
__device__ __forceinline__ uint32_t toHalfBits(float x, bool bf16) {
  return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x)) : __half_as_ushort(__float2half_rn(x));
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
      for (int k = 0; k < 4; ++k) w[k] = toHalfBits(x[2 * k], bf) | toHalfBits(x[2 * k + 1], bf) << 16;
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
  forEachIndex<kFR>(a.rank, a.shape, flat, [&](int k, uint32_t i) {
#pragma unroll
    for (int o = 0; o < NO; ++o) off[o] += i * a.ops[o].strides[k];
  });
}

// V values of an operand: V == 1 one element; V == kV a group along the
// innermost dim (contiguous, or broadcast along it).
template <int V>
__device__ __forceinline__ void loadOperand(const FOperand& o, uint32_t off, float (&r)[V]) {
  if (o.is_const) {
    const float c = static_cast<float>(o.value);
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = c;
  } else if (V == 1 || o.strides[0] == 0) {
    const float x = loadF(o.data, o.dtype, off);
#pragma unroll
    for (int v = 0; v < V; ++v) r[v] = x;
  } else {
    if constexpr (V == kV) loadVec(o.data, o.dtype, off, r);
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
  template <int O, int N, int V>
  __device__ __forceinline__ static void eval(const FArgs& a, const uint32_t* off, float (&r)[V]) {
    loadOperand<V>(a.ops[O], off[O], r);
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

  template <int O, int N, int V>
  __device__ __forceinline__ static void eval(const FArgs& a, const uint32_t* off, float (&r)[V]) {
    float x[3][V] = {};  // operands an op does not take stay 0, as in the interpreter
    evalKids<O, N, V, 0, Kids...>(a, off, x);
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
  template <int O, int N, int V, int J, class K, class... Rest>
  __device__ __forceinline__ static void evalKids(const FArgs& a, const uint32_t* off, float (&x)[3][V]) {
    K::template eval<O, N, V>(a, off, x[J]);
    if constexpr (sizeof...(Rest) > 0) evalKids<O + K::kOps, N + K::kNodes, V, J + 1, Rest...>(a, off, x);
  }
  template <int J, class K, class... Rest>
  static bool matchKids(const HTree& t, const HNode& n, const Plan& pl, FArgs& a, int O, int N) {
    if (!K::match(t, n.kids[J], pl, a, O, N)) return false;
    if constexpr (sizeof...(Rest) > 0)
      return matchKids<J + 1, Rest...>(t, n, pl, a, O + K::kOps, N + K::kNodes);
    return true;
  }
};

template <class E>
__global__ void __launch_bounds__(kThreads) fastPwKernel(const FArgs a) {
  static_assert(E::kOps <= kFO && E::kNodes <= kFN, "shape beyond the argument slots");
  constexpr int NO = E::kOps;
  const uint32_t step = gridDim.x * blockDim.x;
  const uint32_t t0 = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t g = t0; g < a.n_groups; g += step) {
    uint32_t off[NO];
    offsetsAt(a, g * kV, off);
    float r[kV];
    E::template eval<0, 0, kV>(a, off, r);
    storeVec(a.out, a.out_dtype, g * kV, r);
  }
  for (uint32_t i = a.n_groups * kV + t0; i < a.n; i += step) {
    uint32_t off[NO];
    offsetsAt(a, i, off);
    float r[1];
    E::template eval<0, 0, 1>(a, off, r);
    storeF(a.out, a.out_dtype, i, r[0]);
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
    if (x.strides[0] != 1 || !aligned16(x.data)) return false;
    for (int k = 1; k < a.rank; ++k)
      if (x.strides[k] % kV != 0) return false;
  }
  return true;
}

template <class E>
bool tryShape(const Ctx& c) {
  FArgs a = c.base;
  if (!E::match(c.tree, c.root, c.plan, a, 0, 0)) return false;
  bool vec = vectorizable(a, E::kOps);
  a.n_groups = vec ? a.n / kV : 0;
  countLaunch(vec ? Path::PwVector : Path::PwScalar);
  fastPwKernel<E><<<gridFor(vec ? a.n_groups + a.n % kV : a.n), kThreads, 0, c.stream>>>(a);
  FC_CUDA(cudaGetLastError());
  return true;
}

template <class... Es>
bool tryAll(const Ctx& c) {
  return (tryShape<Es>(c) || ...);
}
template <class... Fs>
bool tryUnary(const Ctx& c) {
  return tryAll<OpNode<Fs, Opnd>...>(c);
}
template <class... Fs>
bool tryBinary(const Ctx& c) {
  return tryAll<OpNode<Fs, Opnd, Opnd>...>(c);
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

bool dispatch(const Ctx& c) {
  if (c.tree.nodes[c.root].operand) return tryAll<Opnd>(c);
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
  c.base.rank = rank;
  for (int k = 0; k < rank; ++k) c.base.shape[k] = static_cast<uint32_t>(shape[k]);
  c.base.n = static_cast<uint32_t>(n);
  c.base.out = p.out;
  c.base.out_dtype = p.out_dtype;
  c.stream = static_cast<cudaStream_t>(stream);
  return dispatch(c);
}

}  // namespace fc::exec::cuda::kern
