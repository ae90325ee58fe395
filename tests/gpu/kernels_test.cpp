// The CUDA backend's specialized kernels (label `gpu`; kernels.h): each
// path (pointwise vector / scalar / fallback interpreter, row and column
// reductions, the ring) is driven directly and compared bit for bit with
// the general kernels (setSpecializedKernels(false)) and with the CPU's
// semantics (fp64 op, rounded to each produced dtype; the simulated
// communicator for the ring), and through runFusion against the CPU
// reference with the usual tolerance. The kernel counters prove which path
// ran. Without a device every test skips with a message saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "exec/communicator.h"
#include "exec/dtype_convert.h"
#include "exec/host_tensor.h"
#include "gpu_test_util.h"
#if FC_HAVE_CUDA
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/kernels.h"
#endif

namespace fc {
namespace {

using namespace gputest;  // NOLINT(google-build-using-namespace)

#if FC_HAVE_CUDA
namespace cu = exec::cuda;
using exec::HostTensor;
using exec::Shape;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool sameBits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// A device buffer holding n elements `shift` elements after a 16-byte
// aligned start (shift 1: a misaligned tensor).
struct Buf {
  cu::DeviceTensor t;
  int64_t shift = 0;
  DType dtype = DType::Float;
  void* ptr() { return static_cast<char*>(t.data()) + shift * dtypeBytes(dtype); }
  std::vector<double> get(int64_t n) const {
    HostTensor h = t.download(nullptr);
    return std::vector<double>(h.data() + shift, h.data() + shift + n);
  }
};
Buf upload(const HostTensor& h, int64_t shift = 0) {
  HostTensor x(h.dtype(), {h.numel() + shift});
  for (int64_t i = 0; i < h.numel(); ++i) x[i + shift] = h[i];
  return Buf{cu::DeviceTensor::upload(x, nullptr), shift, h.dtype()};
}
Buf blank(DType dt, int64_t n, int64_t shift = 0) {
  return Buf{cu::DeviceTensor(dt, {n + shift}), shift, dt};
}

// Deterministic values of `dt` in about [-scale, scale]; with specials,
// NaN, +-inf and +-0 are sprinkled in.
HostTensor values(DType dt, int64_t n, int salt, bool specials = true, double scale = 12) {
  HostTensor h(dt, {n});
  for (int64_t i = 0; i < n; ++i) {
    double x = std::sin(0.37 * static_cast<double>(i) + salt) * scale * (1 + (i * 13 + salt) % 7) / 7.0;
    if (specials) {
      if (i % 97 == 5) x = kNaN;
      if (i % 89 == 6) x = kInf;
      if (i % 83 == 7) x = -kInf;
      if (i % 79 == 8) x = -0.0;
      if (i % 73 == 9) x = 0.0;
    }
    if (dt == DType::Bool) x = (i * 7 + salt) % 3 == 0 ? 1 : 0;
    h[i] = exec::roundTo(dt, x);
  }
  return h;
}

// Turns the specialized kernels back on however a test ends.
struct GeneralKernels {
  GeneralKernels() { cu::setSpecializedKernels(false); }
  ~GeneralKernels() { cu::setSpecializedKernels(true); }
};

// ------------------------------------------------------------ pointwise

// A PwProgram over host tensors uploaded for the test.
struct Prog {
  cu::PwProgram p;
  std::vector<const HostTensor*> host;  // per leaf
  std::vector<Buf> bufs;

  explicit Prog(const std::vector<int64_t>& shape) {
    p.rank = static_cast<int>(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) p.shape[d] = shape[d];
    bufs.reserve(cu::kMaxLeaves);
  }
  cu::PwRef leaf(const HostTensor& h, const std::vector<int64_t>& strides, int64_t shift = 0) {
    bufs.push_back(upload(h, shift));
    cu::LeafView& l = p.leaves[p.n_leaves];
    l.data = bufs.back().ptr();
    l.dtype = h.dtype();
    for (size_t d = 0; d < strides.size(); ++d) l.strides[d] = strides[d];
    if (h.dtype() == DType::Double) p.fp64 = true;
    host.push_back(&h);
    return cu::PwRef{cu::PwRef::Leaf, static_cast<uint8_t>(p.n_leaves++), 0};
  }
  static cu::PwRef cst(double v) { return cu::PwRef{cu::PwRef::Const, 0, v}; }
  cu::PwRef op(OpKind k, DType round, const std::vector<cu::PwRef>& args, bool approx = false) {
    cu::PwInstr& in = p.instrs[p.n_instrs];
    in.op = k;
    in.round_to = round;
    in.approx_tanh = approx;
    in.nargs = static_cast<uint8_t>(args.size());
    for (size_t j = 0; j < args.size(); ++j) in.args[j] = args[j];
    if (round == DType::Double) p.fp64 = true;
    return cu::PwRef{cu::PwRef::Reg, static_cast<uint8_t>(p.n_instrs++), 0};
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < p.rank; ++d) n *= p.shape[d];
    return n;
  }
};

// The CPU's semantics of one op in fp64 (the ops compared with it here).
double hostOp(OpKind k, double a, double b, double c) {
  switch (k) {
    case OpKind::Set:
    case OpKind::SegmentSet:
    case OpKind::Cast: return a;
    case OpKind::Neg: return -a;
    case OpKind::Abs: return std::fabs(a);
    case OpKind::Relu: return std::isnan(a) ? a : (a > 0 ? a : 0.0);
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Mul: return a * b;
    case OpKind::Div: return a / b;
    case OpKind::Maximum: return (std::isnan(a) || std::isnan(b)) ? kNaN : (a > b ? a : b);
    case OpKind::Minimum: return (std::isnan(a) || std::isnan(b)) ? kNaN : (a < b ? a : b);
    case OpKind::Eq: return a == b;
    case OpKind::Ne: return a != b;
    case OpKind::Lt: return a < b;
    case OpKind::Le: return a <= b;
    case OpKind::Gt: return a > b;
    case OpKind::Ge: return a >= b;
    case OpKind::LogicalAnd: return a != 0 && b != 0;
    case OpKind::LogicalOr: return a != 0 || b != 0;
    case OpKind::Where: return a != 0 ? b : c;
    default: ADD_FAILURE() << "no host op for " << opName(k); return kNaN;
  }
}

// Element `flat` of the program as the CPU executor computes it: fp64
// ops, each result rounded to its dtype, stored in the output dtype.
double hostEval(const Prog& pr, int64_t flat) {
  const cu::PwProgram& p = pr.p;
  int64_t off[cu::kMaxLeaves] = {};
  for (int d = p.rank - 1; d >= 0; --d) {
    int64_t i = flat % p.shape[d];
    flat /= p.shape[d];
    for (int l = 0; l < p.n_leaves; ++l) off[l] += i * p.leaves[l].strides[d];
  }
  double regs[cu::kMaxInstrs] = {};
  for (int k = 0; k < p.n_instrs; ++k) {
    const cu::PwInstr& in = p.instrs[k];
    double v[3] = {0, 0, 0};
    for (int j = 0; j < in.nargs; ++j) {
      const cu::PwRef& r = in.args[j];
      v[j] = r.kind == cu::PwRef::Leaf  ? (*pr.host[r.index])[off[r.index]]
             : r.kind == cu::PwRef::Reg ? regs[r.index]
                                        : r.value;
    }
    regs[k] = exec::roundTo(in.round_to, hostOp(in.op, v[0], v[1], v[2]));
  }
  return exec::roundTo(p.out_dtype, regs[p.n_instrs - 1]);
}

struct PwRun {
  std::vector<double> fast, general;
  cu::KernelCounts counts;  // of the specialized run
};

// Runs the program with the specialized kernels and with the general ones
// into outputs of `out` placed `out_shift` elements after an aligned start.
PwRun runBoth(Prog& pr, DType out, int64_t out_shift = 0) {
  int64_t n = pr.numel();
  Buf o1 = blank(out, n, out_shift), o2 = blank(out, n, out_shift);
  pr.p.out_dtype = out;
  PwRun r;
  cu::resetKernelCounts();
  pr.p.out = o1.ptr();
  cu::launchPointwise(pr.p);
  r.counts = cu::kernelCounts();
  {
    GeneralKernels general;
    pr.p.out = o2.ptr();
    cu::launchPointwise(pr.p);
  }
  r.fast = o1.get(n);
  r.general = o2.get(n);
  return r;
}

enum class Want { Vector, Scalar, Tiled, Interpreter };

void expectPath(const cu::KernelCounts& c, Want w, const std::string& what) {
  EXPECT_EQ(c.pointwise_vector, w == Want::Vector ? 1 : 0) << what;
  EXPECT_EQ(c.pointwise_scalar, w == Want::Scalar ? 1 : 0) << what;
  EXPECT_EQ(c.pointwise_tiled, w == Want::Tiled ? 1 : 0) << what;
  EXPECT_EQ(c.pointwise_interpreter, w == Want::Interpreter ? 1 : 0) << what;
}

// Specialized == general bit for bit; with_host: == the CPU semantics too.
void expectPw(Prog& pr, DType out, Want w, const std::string& what, bool with_host = true,
              int64_t out_shift = 0) {
  PwRun r = runBoth(pr, out, out_shift);
  expectPath(r.counts, w, what);
  int64_t bad = 0, bad_host = 0;
  for (size_t i = 0; i < r.fast.size(); ++i) {
    if (!sameBits(r.fast[i], r.general[i]) && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << " specialized " << r.fast[i] << ", general "
                    << r.general[i];
    if (!with_host) continue;
    double want = hostEval(pr, static_cast<int64_t>(i));
    if (!sameBits(r.fast[i], want) && bad_host++ < 3)
      ADD_FAILURE() << what << ": element " << i << " specialized " << r.fast[i] << ", CPU " << want;
  }
  EXPECT_EQ(bad, 0) << what << ": elements differing from the general kernel";
  EXPECT_EQ(bad_host, 0) << what << ": elements differing from the CPU";
}

TEST(GpuKernels, PointwiseBinaryContiguousIsVectorized) {
  REQUIRE_GPU();
  for (DType dt : {DType::Half, DType::BFloat16, DType::Float}) {
    HostTensor a = values(dt, 64 * 1000, 1), b = values(dt, 64 * 1000, 2);
    for (OpKind k : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Maximum, OpKind::Minimum}) {
      Prog pr({64, 1000});
      pr.op(k, dt, {pr.leaf(a, {1000, 1}), pr.leaf(b, {1000, 1})});
      expectPw(pr, dt, Want::Vector, std::string(opName(k)) + " " + std::string(dtypeName(dt)));
    }
  }
}

TEST(GpuKernels, PointwiseSeedEpilogueRowBroadcast) {
  REQUIRE_GPU();
  // T9 = float(T5) + float(broadcast(bias)): the seed's epilogue program.
  HostTensor x = values(DType::Half, 37 * 64, 3), bias = values(DType::Half, 64, 4);
  Prog pr({37, 64});
  auto c0 = pr.op(OpKind::Cast, DType::Float, {pr.leaf(x, {64, 1})});
  auto c1 = pr.op(OpKind::Cast, DType::Float, {pr.leaf(bias, {0, 1})});
  pr.op(OpKind::Add, DType::Float, {c0, c1});
  expectPw(pr, DType::Float, Want::Vector, "seed epilogue");
}

TEST(GpuKernels, PointwiseOddSizeHasAScalarTail) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Float, 7 * 33, 5), b = values(DType::Half, 7 * 33, 6);
  Prog pr({7, 33});  // contiguous: one coalesced dim of 231 = 28 groups of 8 + 7
  pr.op(OpKind::Sub, DType::Half, {pr.leaf(a, {33, 1}), pr.leaf(b, {33, 1})});
  expectPw(pr, DType::Half, Want::Vector, "odd size with a tail");
}

TEST(GpuKernels, PointwiseOddInnerBroadcastIsScalar) {
  REQUIRE_GPU();
  HostTensor a = values(DType::BFloat16, 9 * 13, 7), b = values(DType::BFloat16, 13, 8);
  Prog pr({9, 13});
  pr.op(OpKind::Mul, DType::BFloat16, {pr.leaf(a, {13, 1}), pr.leaf(b, {0, 1})});
  expectPw(pr, DType::BFloat16, Want::Scalar, "row broadcast, inner 13");
}

TEST(GpuKernels, PointwiseColumnBroadcastIsVectorized) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Half, 40 * 16, 9), b = values(DType::Float, 40, 10);
  Prog pr({40, 16});  // b is [40, 1] expanded along the innermost dim
  pr.op(OpKind::Add, DType::Float, {pr.leaf(a, {16, 1}), pr.leaf(b, {1, 0})});
  expectPw(pr, DType::Float, Want::Vector, "column broadcast");
}

TEST(GpuKernels, PointwiseTransposedLeafIsTiled) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Half, 40 * 16, 11), b = values(DType::Half, 16 * 40, 12);
  {
    Prog pr({16, 40});  // a is a [40, 16] tensor read transposed
    pr.op(OpKind::Maximum, DType::Half, {pr.leaf(a, {1, 16}), pr.leaf(b, {40, 1})});
    expectPw(pr, DType::Half, Want::Tiled, "transposed leaf");
  }
  // Shapes across tile edges (64 x 64 tiles), every staged dtype, a batch
  // dim, two transposed operands, and a third transposed one that exceeds
  // the staging slots (scalar path).
  for (DType dt : {DType::Half, DType::BFloat16, DType::Float}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{130, 67}, {64, 64}, {1, 300}, {257, 3}}) {
      HostTensor x = values(dt, rows * cols, 31);
      Prog pr({cols, rows});  // out [cols, rows] = cast(x^T)
      pr.op(OpKind::Cast, DType::Float, {pr.leaf(x, {1, cols})});
      bool tiled = rows > 1 && cols > 1;
      expectPw(
          pr, DType::Float, tiled ? Want::Tiled : Want::Vector,
          std::string(dtypeName(dt)) + " transpose " + std::to_string(rows) + "x" + std::to_string(cols));
    }
  }
  HostTensor m = values(DType::Bool, 70 * 90, 32), x = values(DType::Half, 70 * 90, 33),
             y = values(DType::Half, 3 * 70 * 90, 34), z = values(DType::Float, 70 * 90, 35);
  {
    Prog pr({90, 70});  // where(m^T, x^T, 0.5): two staged operands, Bool and Half
    pr.op(OpKind::Where, DType::Half, {pr.leaf(m, {1, 90}), pr.leaf(x, {1, 90}), Prog::cst(0.5)});
    expectPw(pr, DType::Half, Want::Scalar, "where of two transposed (where is not tiled)");
  }
  {
    Prog pr({90, 70});
    pr.op(OpKind::Sub, DType::Half, {pr.leaf(x, {1, 90}), pr.leaf(z, {1, 90})});
    expectPw(pr, DType::Half, Want::Tiled, "two transposed operands");
  }
  {
    Prog pr({3, 90, 70});  // a batch of three [70, 90] matrices read transposed
    pr.op(OpKind::Neg, DType::Half, {pr.leaf(y, {70 * 90, 1, 90})});
    expectPw(pr, DType::Half, Want::Tiled, "batched transpose");
  }
}

TEST(GpuKernels, PointwiseMisalignedIsScalar) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Half, 8 * 64, 13), b = values(DType::Half, 8 * 64, 14);
  {
    Prog pr({8, 64});
    pr.op(OpKind::Add, DType::Half, {pr.leaf(a, {64, 1}, 1), pr.leaf(b, {64, 1})});
    expectPw(pr, DType::Half, Want::Scalar, "misaligned input");
  }
  {
    Prog pr({8, 64});
    pr.op(OpKind::Add, DType::Half, {pr.leaf(a, {64, 1}), pr.leaf(b, {64, 1})});
    expectPw(pr, DType::Half, Want::Scalar, "misaligned output", true, 1);
  }
}

TEST(GpuKernels, PointwiseOneElement) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Float, 1, 15, false), b = values(DType::Float, 1, 16, false);
  Prog pr({1, 1});
  pr.op(OpKind::Div, DType::Float, {pr.leaf(a, {1, 1}), pr.leaf(b, {0, 0})});
  expectPw(pr, DType::Float, Want::Vector, "one element");
}

TEST(GpuKernels, PointwiseCastChainsAndConstants) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Float, 32 * 24, 17), b = values(DType::Half, 32 * 24, 18);
  {
    Prog pr({32, 24});  // float -> half -> bfloat16: two roundings of one operand
    pr.op(OpKind::Cast, DType::BFloat16, {pr.op(OpKind::Cast, DType::Half, {pr.leaf(a, {24, 1})})});
    expectPw(pr, DType::BFloat16, Want::Vector, "cast chain");
  }
  {
    Prog pr({32, 24});  // add rounded to float, then cast to half and to bfloat16
    auto s = pr.op(OpKind::Add, DType::Float, {pr.leaf(a, {24, 1}), pr.leaf(b, {24, 1})});
    pr.op(OpKind::Cast, DType::BFloat16, {pr.op(OpKind::Cast, DType::Half, {s})});
    expectPw(pr, DType::Float, Want::Vector, "op with cast chain, float out");
  }
  {
    Prog pr({32, 24});  // constants (float-representable, so the CPU agrees)
    auto m = pr.op(OpKind::Mul, DType::Half, {pr.leaf(b, {24, 1}), Prog::cst(0.375)});
    pr.op(OpKind::Sub, DType::Half, {Prog::cst(3.0), m});
    expectPw(pr, DType::Half, Want::Vector, "constants");
  }
}

TEST(GpuKernels, PointwiseChainsAreNotContracted) {
  REQUIRE_GPU();
  // add(mul(a, b), c) in float: an fma would round once; the CPU and the
  // interpreter round the product first.
  HostTensor a = values(DType::Float, 4096, 19, false), b = values(DType::Float, 4096, 20, false),
             c = values(DType::Float, 4096, 21, false);
  for (bool mirrored : {false, true}) {
    Prog pr({4096});
    auto m = pr.op(OpKind::Mul, DType::Float, {pr.leaf(a, {1}), pr.leaf(b, {1})});
    if (mirrored)
      pr.op(OpKind::Sub, DType::Float, {pr.leaf(c, {1}), m});
    else
      pr.op(OpKind::Add, DType::Float, {m, pr.leaf(c, {1})});
    expectPw(pr, DType::Float, Want::Vector, mirrored ? "c - a * b" : "a * b + c");
  }
}

TEST(GpuKernels, PointwiseCompareWhereAndBool) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Half, 16 * 48, 22), b = values(DType::Half, 48, 23),
             m = values(DType::Bool, 16 * 48, 24);
  for (OpKind k : {OpKind::Eq, OpKind::Ne, OpKind::Lt, OpKind::Le, OpKind::Gt, OpKind::Ge}) {
    Prog pr({16, 48});  // where(a > b, a, b) with b a row broadcast
    auto x = pr.leaf(a, {48, 1}), y = pr.leaf(b, {0, 1});
    pr.op(OpKind::Where, DType::Half, {pr.op(k, DType::Bool, {x, y}), x, y});
    expectPw(pr, DType::Half, Want::Vector, "where(" + std::string(opName(k)) + ")");
  }
  {
    Prog pr({16, 48});  // Bool output of a compare
    pr.op(OpKind::Lt, DType::Bool, {pr.leaf(a, {48, 1}), pr.leaf(b, {0, 1})});
    expectPw(pr, DType::Bool, Want::Vector, "lt to Bool");
  }
  {
    Prog pr({16, 48});  // a Bool mask leaf and a constant
    pr.op(OpKind::Where, DType::Half, {pr.leaf(m, {48, 1}), pr.leaf(a, {48, 1}), Prog::cst(-2.5)});
    expectPw(pr, DType::Half, Want::Vector, "where(mask)");
  }
  {
    Prog pr({16, 48});
    pr.op(OpKind::LogicalAnd, DType::Bool, {pr.leaf(m, {48, 1}), pr.leaf(a, {48, 1})});
    expectPw(pr, DType::Bool, Want::Vector, "logical_and");
  }
}

TEST(GpuKernels, PointwiseUnaryAndActivationsMatchTheInterpreter) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Float, 24 * 40, 25), b = values(DType::Half, 40, 26);
  for (OpKind k : {OpKind::Neg, OpKind::Abs, OpKind::Exp, OpKind::Log, OpKind::Sqrt, OpKind::Rsqrt,
                   OpKind::Tanh, OpKind::Sigmoid, OpKind::Relu, OpKind::Gelu, OpKind::Silu,
                   OpKind::Reciprocal, OpKind::Erf, OpKind::Floor, OpKind::Ceil, OpKind::LogicalNot}) {
    for (bool approx : {false, true}) {
      if (approx && k != OpKind::Gelu) continue;
      std::string what = std::string(opName(k)) + (approx ? " tanh" : "");
      {
        Prog pr({24, 40});
        pr.op(k, DType::Half, {pr.leaf(a, {40, 1})}, approx);
        expectPw(pr, DType::Half, Want::Vector, what, false);
      }
      if (k != OpKind::Relu && k != OpKind::Gelu && k != OpKind::Silu && k != OpKind::Sigmoid &&
          k != OpKind::Tanh)
        continue;
      for (OpKind inner : {OpKind::Add, OpKind::Sub, OpKind::Mul}) {
        Prog pr({24, 40});  // act(x op bias), the bias-activation epilogue
        auto s = pr.op(inner, DType::Half, {pr.leaf(a, {40, 1}), pr.leaf(b, {0, 1})});
        pr.op(k, DType::Half, {s}, approx);
        expectPw(pr, DType::Half, Want::Vector, what + "(" + std::string(opName(inner)) + ")", false);
      }
    }
  }
}

TEST(GpuKernels, PointwiseFallsBackToTheInterpreter) {
  REQUIRE_GPU();
  HostTensor a = values(DType::Float, 8 * 16, 27), b = values(DType::Float, 8 * 16, 28);
  HostTensor c = values(DType::Float, 8 * 16, 30), d = values(DType::Double, 8 * 16, 29);
  {
    Prog pr({8, 16});  // pow: no specialized shape
    pr.op(OpKind::Pow, DType::Float, {pr.leaf(a, {16, 1}), pr.leaf(b, {16, 1})});
    expectPw(pr, DType::Float, Want::Interpreter, "pow", false);
  }
  {
    Prog pr({8, 16});  // sin: interpreter only
    pr.op(OpKind::Sin, DType::Float, {pr.leaf(a, {16, 1})});
    expectPw(pr, DType::Float, Want::Interpreter, "sin", false);
  }
  {
    Prog pr({8, 16});  // fp8 output
    pr.op(OpKind::Cast, DType::Float8_e4m3fn, {pr.leaf(a, {16, 1})});
    expectPw(pr, DType::Float8_e4m3fn, Want::Interpreter, "cast to fp8");
  }
  {
    Prog pr({8, 16});  // fp64 program
    pr.op(OpKind::Add, DType::Double, {pr.leaf(d, {16, 1}), pr.leaf(a, {16, 1})});
    expectPw(pr, DType::Double, Want::Interpreter, "double add");
  }
  {
    Prog pr({8, 16});  // where(a + b, c * 2, 1): five operands, beyond the catalog
    auto s = pr.op(OpKind::Add, DType::Float, {pr.leaf(a, {16, 1}), pr.leaf(b, {16, 1})});
    auto t = pr.op(OpKind::Mul, DType::Float, {pr.leaf(c, {16, 1}), Prog::cst(2)});
    pr.op(OpKind::Where, DType::Float, {s, t, Prog::cst(1)});
    expectPw(pr, DType::Float, Want::Interpreter, "where of two ops");
  }
}

// ------------------------------------------------------------ reductions

struct RedRun {
  std::vector<double> fast, general, host;
  cu::KernelCounts counts;
};

// Reduces the contiguous tensor `x` over `red` (dims) as the executor does:
// kept dims first, then the reduced ones.
RedRun reduceBoth(const HostTensor& x, const std::vector<int>& red, OpKind op, DType out, int64_t shift = 0) {
  const Shape& sh = x.shape();
  int r = static_cast<int>(sh.size());
  auto st = x.strides();
  std::vector<bool> is_red(r, false);
  for (int d : red) is_red[d] = true;
  Buf in = upload(x, shift);
  cu::ReduceArgs a;
  a.in = in.ptr();
  a.in_dtype = x.dtype();
  a.rank = r;
  a.op = op;
  a.out_dtype = out;
  int k = 0;
  int64_t n_out = 1, count = 1;
  std::vector<int64_t> kept_dims;
  for (int pass = 0; pass < 2; ++pass)
    for (int d = 0; d < r; ++d)
      if (is_red[d] == (pass == 1)) {
        a.shape[k] = sh[d];
        a.strides[k++] = st[d];
        (pass ? count : n_out) *= sh[d];
        if (pass) ++a.n_red;
      }
  Buf o1 = blank(out, n_out), o2 = blank(out, n_out);
  RedRun res;
  cu::resetKernelCounts();
  a.out = o1.ptr();
  cu::launchReduce(a);
  res.counts = cu::kernelCounts();
  {
    GeneralKernels general;
    a.out = o2.ptr();
    cu::launchReduce(a);
  }
  res.fast = o1.get(n_out);
  res.general = o2.get(n_out);
  // The CPU: fp64 accumulation in index order, rounded once.
  res.host.assign(n_out, 0);
  for (int64_t o = 0; o < n_out; ++o) {
    double acc = op == OpKind::Prod ? 1 : op == OpKind::Max ? -kInf : op == OpKind::Min ? kInf : 0;
    for (int64_t j = 0; j < count; ++j) {
      int64_t off = 0, oo = o, jj = j;
      for (int d = a.rank - 1; d >= 0; --d) {
        bool reduced = d >= a.rank - a.n_red;
        int64_t& idx = reduced ? jj : oo;
        off += (idx % a.shape[d]) * a.strides[d];
        idx /= a.shape[d];
      }
      double v = x[off];
      if (op == OpKind::Max || op == OpKind::Min)
        acc = (std::isnan(acc) || std::isnan(v)) ? kNaN
                                                 : (op == OpKind::Max ? std::max(acc, v) : std::min(acc, v));
      else
        acc = op == OpKind::Prod ? acc * v : acc + v;
    }
    if (op == OpKind::Mean) acc /= static_cast<double>(count);
    res.host[o] = exec::roundTo(out, acc);
  }
  return res;
}

enum class RedPath { Row, Column, General };

// Half inputs in [-1, 1]: every fp64 sum below is exact, so any order of
// accumulation gives the CPU's bits.
void expectReduce(const HostTensor& x, const std::vector<int>& red, OpKind op, DType out, RedPath path,
                  const std::string& what, int64_t shift = 0) {
  RedRun r = reduceBoth(x, red, op, out, shift);
  EXPECT_EQ(r.counts.reduce_row, path == RedPath::Row ? 1 : 0) << what;
  EXPECT_EQ(r.counts.reduce_column, path == RedPath::Column ? 1 : 0) << what;
  EXPECT_EQ(r.counts.reduce_general, path == RedPath::General ? 1 : 0) << what;
  int64_t bad = 0;
  for (size_t i = 0; i < r.fast.size(); ++i) {
    bool ok = sameBits(r.fast[i], r.general[i]) && sameBits(r.fast[i], r.host[i]);
    if (!ok && bad++ < 3)
      ADD_FAILURE() << what << ": output " << i << " specialized " << r.fast[i] << ", general "
                    << r.general[i] << ", CPU " << r.host[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

HostTensor halfInput(const Shape& shape, int salt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  HostTensor h = values(DType::Half, n, salt, false, 1.0);
  HostTensor x(DType::Half, shape);
  for (int64_t i = 0; i < n; ++i)
    x[i] = h[i] == 0 ? 0.5 : h[i];  // no zeros: max/min of +-0 is order-dependent
  return x;
}

TEST(GpuKernels, RowReductions) {
  REQUIRE_GPU();
  for (OpKind op : {OpKind::Sum, OpKind::Mean, OpKind::Max, OpKind::Min}) {
    std::string o(opName(op));
    expectReduce(halfInput({3000, 1000}, 1), {1}, op, DType::Float, RedPath::Row, o + " warp per row");
    expectReduce(halfInput({300, 1000}, 2), {1}, op, DType::Half, RedPath::Row, o + " block per row");
    expectReduce(halfInput({3, 100000}, 3), {1}, op, DType::Float, RedPath::Row, o + " split rows");
    expectReduce(halfInput({64, 1000}, 4), {0, 1}, op, DType::Float, RedPath::Row, o + " full reduction");
    expectReduce(halfInput({50, 999}, 5), {1}, op, DType::Float, RedPath::Row, o + " odd rows (scalar)");
    expectReduce(halfInput({40, 1000}, 6), {1}, op, DType::Float, RedPath::Row, o + " misaligned", 1);
    expectReduce(halfInput({5, 12, 40}, 7), {1, 2}, op, DType::Half, RedPath::Row, o + " two inner dims");
  }
}

TEST(GpuKernels, ColumnReductions) {
  REQUIRE_GPU();
  for (OpKind op : {OpKind::Sum, OpKind::Mean, OpKind::Max, OpKind::Min}) {
    std::string o(opName(op));
    expectReduce(halfInput({1000, 136}, 8), {0}, op, DType::Float, RedPath::Column, o + " columns");
    expectReduce(halfInput({20000, 64}, 9), {0}, op, DType::Float, RedPath::Column, o + " split columns");
    expectReduce(halfInput({777, 13}, 10), {0}, op, DType::Half, RedPath::Column, o + " odd columns");
    expectReduce(halfInput({6, 500, 24}, 11), {1}, op, DType::Float, RedPath::Column, o + " middle dim");
    expectReduce(halfInput({30, 40, 16}, 12), {0, 1}, op, DType::Float, RedPath::Column,
                 o + " two outer dims");
  }
}

TEST(GpuKernels, ReductionsOutsideTheFastShapesAreGeneral) {
  REQUIRE_GPU();
  expectReduce(halfInput({200, 8}, 13), {1}, OpKind::Sum, DType::Float, RedPath::General, "8 per output");
  expectReduce(halfInput({10, 30, 20}, 14), {0, 2}, OpKind::Sum, DType::Float, RedPath::General,
               "dims 0 and 2");
  HostTensor f8(DType::Float8_e4m3fn, {4, 64});
  for (int64_t i = 0; i < f8.numel(); ++i) f8[i] = exec::roundTo(DType::Float8_e4m3fn, (i % 9) * 0.25 - 1);
  expectReduce(f8, {1}, OpKind::Sum, DType::Float, RedPath::General, "fp8 input");
}

TEST(GpuKernels, ReductionsOfOtherDTypesAndNaN) {
  REQUIRE_GPU();
  for (DType dt : {DType::Float, DType::BFloat16, DType::Double}) {
    HostTensor x(dt, {500, 128});
    HostTensor v = values(dt, x.numel(), 15, false, 100);
    for (int64_t i = 0; i < x.numel(); ++i) x[i] = v[i];
    for (std::vector<int> red : {std::vector<int>{1}, std::vector<int>{0}}) {
      RedRun r = reduceBoth(x, red, OpKind::Sum, dt);
      EXPECT_EQ(r.counts.reduce_general, 0) << dtypeName(dt);
      // fp64 sums in another order: one rounding apart in the output dtype. In Double the
      // outputs themselves are fp64 sums in another order, and ulps of a sum that cancels
      // mean nothing (measured: 3072 ulps on a result near 0): bound the difference by
      // the reordering error n * eps * sum |x| instead (n <= 500, |x| <= 100).
      for (size_t i = 0; i < r.fast.size(); ++i) {
        if (dt == DType::Double)
          EXPECT_LE(std::fabs(r.fast[i] - r.host[i]), 500 * 0x1p-52 * 500 * 100) << "Double output " << i;
        else
          EXPECT_LE(exec::ulpDistance(dt, r.fast[i], r.host[i]), 1u) << dtypeName(dt) << " output " << i;
      }
    }
  }
  HostTensor x = halfInput({64, 256}, 16);
  x[3 * 256 + 17] = kNaN;  // row 3, column 17
  for (OpKind op : {OpKind::Sum, OpKind::Max, OpKind::Min}) {
    expectReduce(x, {1}, op, DType::Float, RedPath::Row, "NaN row " + std::string(opName(op)));
    expectReduce(x, {0}, op, DType::Float, RedPath::Column, "NaN column " + std::string(opName(op)));
  }
}

// ------------------------------------------------------------ ring

// The device ring over R ranks vs SimulatedCommunicator, bit for bit.
void expectRing(DType dt, int R, int64_t n, exec::ReduceOp op, bool all, int root, int64_t shift,
                bool in_place, bool want_vector) {
  std::string what = std::string(dtypeName(dt)) + " R=" + std::to_string(R) + " n=" + std::to_string(n) +
                     (all ? " allreduce" : " reduce to " + std::to_string(root)) +
                     (shift ? " misaligned" : "") + (in_place ? " in place" : "");
  std::vector<HostTensor> host;
  std::vector<Buf> src, dst;
  for (int r = 0; r < R; ++r) {
    host.push_back(values(dt, n, 30 + r, false, 40));
    src.push_back(upload(host.back(), shift));
  }
  std::vector<exec::CommBuffer> bufs;
  for (auto& h : host) bufs.push_back({h.data(), n, dt});
  exec::SimulatedCommunicator comm(R);
  if (all)
    comm.allreduce(bufs, op);
  else
    comm.reduce(bufs, root, op);
  std::vector<const void*> sp;
  std::vector<void*> dp;
  for (int r = 0; r < (all ? R : 1); ++r) {
    if (!in_place) dst.push_back(blank(dt, n, shift));
    dp.push_back(in_place ? src[all ? r : root].ptr() : dst.back().ptr());
  }
  for (auto& s : src) sp.push_back(s.ptr());
  OpKind k = op == exec::ReduceOp::Sum ? OpKind::Sum : op == exec::ReduceOp::Max ? OpKind::Max : OpKind::Prod;
  cu::resetKernelCounts();
  cu::launchRingReduce(sp.data(), dp.data(), R, n, dt, k, all, root);
  cu::KernelCounts c = cu::kernelCounts();
  EXPECT_EQ(c.ring_vector, want_vector ? 1 : 0) << what;
  EXPECT_EQ(c.ring_scalar, want_vector ? 0 : 1) << what;
  for (int r = 0; r < (all ? R : 1); ++r) {
    const Buf& b = in_place ? src[all ? r : root] : dst[r];
    std::vector<double> got = b.get(n);
    const HostTensor& want = host[all ? r : root];
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(sameBits(got[i], want[i]))
          << what << ": rank " << r << " element " << i << " got " << got[i] << ", CPU " << want[i];
  }
}

TEST(GpuKernels, RingMatchesTheSimulationBitForBit) {
  REQUIRE_GPU();
  for (DType dt : {DType::Half, DType::BFloat16, DType::Float, DType::Double})
    for (int R : {1, 2, 3, 5})
      for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{1001}, int64_t{4099}, int64_t{100000}}) {
        expectRing(dt, R, n, exec::ReduceOp::Sum, true, 0, 0, false, true);
        expectRing(dt, R, n, exec::ReduceOp::Sum, false, R - 1, 0, false, true);
      }
  for (exec::ReduceOp op : {exec::ReduceOp::Max, exec::ReduceOp::Prod})
    expectRing(DType::Half, 3, 5000, op, true, 0, 0, false, true);
  expectRing(DType::Half, 2, 3001, exec::ReduceOp::Sum, true, 0, 0, true, true);    // in place
  expectRing(DType::Half, 3, 3001, exec::ReduceOp::Sum, true, 0, 1, false, false);  // misaligned
  expectRing(DType::Float, 2, 3001, exec::ReduceOp::Sum, false, 1, 1, true, false);
}

// A ring read as a pointwise leaf (launchPointwiseFused) against the ring
// kernel, bit for bit: the ring's result alone, cast and combined with a
// broadcast operand, for R ranks, chunk boundaries inside a vector group,
// misaligned sources (scalar path) and R beyond the fused limit (refused).
TEST(GpuKernels, FusedRingLeafMatchesTheRingKernelBitForBit) {
  REQUIRE_GPU();
  for (DType dt : {DType::Half, DType::BFloat16, DType::Float})
    for (int R : {1, 2, 3, 5})
      for (int64_t n : {int64_t{7}, int64_t{1001}, int64_t{4099}, int64_t{24 * 1000}})
        for (OpKind op : {OpKind::Sum, OpKind::Max, OpKind::Prod})
          for (int64_t shift : {int64_t{0}, int64_t{1}}) {
            if (op != OpKind::Sum && (shift || n != 4099)) continue;
            std::string what = std::string(dtypeName(dt)) + " R=" + std::to_string(R) +
                               " n=" + std::to_string(n) + " " + std::string(opName(op)) +
                               (shift ? " misaligned" : "");
            std::vector<HostTensor> host;
            std::vector<Buf> src;
            for (int r = 0; r < R; ++r) {
              host.push_back(values(dt, n, 50 + r, false, op == OpKind::Prod ? 2 : 40));
              src.push_back(upload(host.back(), shift));
            }
            std::vector<const void*> sp;
            for (auto& b : src) sp.push_back(b.ptr());
            Buf want = blank(dt, n);
            std::vector<void*> dp(R, want.ptr());
            cu::launchRingReduce(sp.data(), dp.data(), R, n, dt, op, true, 0);
            std::vector<double> w = want.get(n);
            HostTensor bias = values(DType::Half, 1, 60, false);
            Buf bb = upload(bias);
            for (bool with_add : {false, true}) {
              cu::PwProgram p;
              p.rank = 1;
              p.shape[0] = n;
              p.n_leaves = 2;
              p.leaves[0].dtype = dt;
              p.leaves[0].strides[0] = 1;
              p.leaves[1].data = bb.ptr();
              p.leaves[1].dtype = DType::Half;
              p.leaves[1].strides[0] = 0;
              p.ring_leaf = 0;
              p.ring.R = R;
              for (int r = 0; r < R; ++r) p.ring.src[r] = sp[r];
              p.ring.count = n;
              p.ring.op = op;
              cu::PwInstr& c = p.instrs[p.n_instrs++];
              c.op = OpKind::Cast;
              c.round_to = DType::Float;
              c.nargs = 1;
              c.args[0] = cu::PwRef{cu::PwRef::Leaf, 0, 0};
              if (with_add) {
                cu::PwInstr& a = p.instrs[p.n_instrs++];
                a.op = OpKind::Add;
                a.round_to = DType::Float;
                a.nargs = 2;
                a.args[0] = cu::PwRef{cu::PwRef::Reg, 0, 0};
                a.args[1] = cu::PwRef{cu::PwRef::Leaf, 1, 0};
              }
              Buf out = blank(DType::Float, n);
              p.out = out.ptr();
              p.out_dtype = DType::Float;
              cu::resetKernelCounts();
              ASSERT_TRUE(cu::launchPointwiseFused(p)) << what;
              EXPECT_EQ(cu::kernelCounts().pointwise_fused_ring, 1) << what;
              std::vector<double> got = out.get(n);
              int64_t bad = 0;
              for (int64_t i = 0; i < n; ++i) {
                double e = with_add
                               ? static_cast<double>(static_cast<float>(w[i]) + static_cast<float>(bias[0]))
                               : w[i];
                if (!sameBits(got[i], e) && bad++ < 3)
                  ADD_FAILURE() << what << (with_add ? " + bias" : "") << ": element " << i << " fused "
                                << got[i] << ", ring kernel " << e;
              }
              EXPECT_EQ(bad, 0) << what;
            }
          }
  // More ranks than a fused kernel reads: refused, nothing launched.
  cu::PwProgram p;
  p.rank = 1;
  p.shape[0] = 16;
  p.n_leaves = 1;
  p.leaves[0].dtype = DType::Half;
  p.leaves[0].strides[0] = 1;
  p.ring_leaf = 0;
  p.ring.R = cu::kMaxRingRanks + 1;
  p.ring.count = 16;
  p.instrs[0].nargs = 1;
  p.instrs[0].args[0] = cu::PwRef{cu::PwRef::Leaf, 0, 0};
  p.n_instrs = 1;
  EXPECT_FALSE(cu::launchPointwiseFused(p));
}

// launchCopyView between strided views, and launchIota's fp64 arithmetic
// (no fused multiply-add, as the host computes start + i * step).
TEST(GpuKernels, CopyViewAndIota) {
  REQUIRE_GPU();
  HostTensor x = values(DType::Float, 6 * 7, 70, false);
  Buf src = upload(x);
  Buf dst = blank(DType::Half, 10 * 9);
  HostTensor fill(DType::Half, {90});
  for (int64_t i = 0; i < 90; ++i) fill[i] = -1;
  Buf d2 = upload(fill);
  const int64_t shape[2] = {3, 4}, sst[2] = {7, 2}, dstr[2] = {9, 1};
  cu::launchCopyView(src.ptr(), DType::Float, 8, sst, d2.ptr(), DType::Half, 11, dstr, shape, 2);
  std::vector<double> got = d2.get(90);
  for (int64_t i = 0; i < 90; ++i) {
    int64_t r = (i - 11) / 9, c = (i - 11) % 9;
    bool inside = i >= 11 && r < 3 && c < 4;
    double want = inside ? exec::roundTo(DType::Half, x[8 + r * 7 + c * 2]) : -1;
    EXPECT_TRUE(sameBits(got[i], want)) << "element " << i << ": " << got[i] << " vs " << want;
  }
  (void)dst;
  const double start = 0.1, step = 1.0 / 3;
  Buf io = blank(DType::Double, 1000);
  cu::launchIota(io.ptr(), DType::Double, 1000, start, step);
  std::vector<double> v = io.get(1000);
  for (int64_t i = 0; i < 1000; ++i) {
    volatile double prod = static_cast<double>(i) * step;  // rounded before the add
    ASSERT_TRUE(sameBits(v[i], start + prod)) << "iota element " << i;
  }
}

TEST(GpuKernels, RingOfFp8UsesTheGeneralKernel) {
  REQUIRE_GPU();
  const int64_t n = 300;
  std::vector<HostTensor> host;
  std::vector<Buf> bufs;
  for (int r = 0; r < 2; ++r) {
    host.push_back(values(DType::Float8_e4m3fn, n, 40 + r, false, 8));
    bufs.push_back(upload(host.back()));
  }
  std::vector<exec::CommBuffer> cb;
  for (auto& h : host) cb.push_back({h.data(), n, DType::Float8_e4m3fn});
  exec::SimulatedCommunicator(2).allreduce(cb, exec::ReduceOp::Sum);
  std::vector<const void*> sp{bufs[0].ptr(), bufs[1].ptr()};
  std::vector<void*> dp{bufs[0].ptr(), bufs[1].ptr()};
  cu::resetKernelCounts();
  cu::launchRingReduce(sp.data(), dp.data(), 2, n, DType::Float8_e4m3fn, OpKind::Sum, true, 0);
  EXPECT_EQ(cu::kernelCounts().ring_general, 1);
  for (int r = 0; r < 2; ++r) {
    std::vector<double> got = bufs[r].get(n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(sameBits(got[i], host[r][i])) << "rank " << r << " element " << i;
  }
}

// ------------------------------------------------------------ through runFusion

// Runs `f` on the GPU against the reference computed on the host (so that
// the counts are the executor's alone).
RunResult runAgainstCpu(const Fusion& f, bool fix = false) {
  RunOptions o;
  o.device = RunDevice::Cuda;
  o.reference_device = RunDevice::Cpu;
  o.fix = fix;
  o.file = "gpu.json";
  return runFusion(f, o);
}

// Runs the repro that way, expects it to pass and returns the kernel counts
// of the run.
cu::KernelCounts passesWithCounts(const std::string& json, const std::string& what) {
  Fusion f = parse(json);
  cu::resetKernelCounts();
  RunResult r = runAgainstCpu(f);
  cu::KernelCounts c = cu::kernelCounts();
  EXPECT_TRUE(r.passed) << what << ": " << explain(r);
  EXPECT_EQ(r.device, RunDevice::Cuda);
  return c;
}

TEST(GpuKernels, ExecutorPathsMatchTheCpuReference) {
  REQUIRE_GPU();
  auto add = [](const std::string& op, const std::string& a, const std::string& b, const std::string& o) {
    return "{\"op\": \"" + op + "\", \"inputs\": [\"" + a + "\", \"" + b + "\"], \"outputs\": [\"" + o +
           "\"]}";
  };
  cu::KernelCounts c = passesWithCounts(repro({{"T0", "Half", {64, 1000}, true},
                                               {"T1", "Half", {64, 1000}, true},
                                               {"T2", "Half", {64, 1000}, true}},
                                              {add("add", "T0", "T1", "T2")}, {"T0", "T1"}, {"T2"}),
                                        "contiguous add");
  EXPECT_GE(c.pointwise_vector, 1);
  c = passesWithCounts(
      repro({{"T0", "Float", {7, 33}, true}, {"T1", "Float", {7, 33}, true}, {"T2", "Float", {7, 33}, true}},
            {add("sub", "T0", "T1", "T2")}, {"T0", "T1"}, {"T2"}),
      "odd size");
  EXPECT_GE(c.pointwise_vector, 1);
  // the seed's epilogue: cast, broadcast, cast, add
  c = passesWithCounts(
      repro({{"T0", "Half", {37, 64}, true},
             {"T1", "Half", {64}, true},
             {"T2", "Half", {1, 64}},
             {"T3", "Float", {37, 64}},
             {"T4", "Float", {1, 64}},
             {"T5", "Float", {37, 64}, true}},
            {"{\"op\": \"broadcast\", \"inputs\": [\"T1\"], \"outputs\": [\"T2\"], \"flags\": [true, false]}",
             "{\"op\": \"cast\", \"inputs\": [\"T0\"], \"outputs\": [\"T3\"], \"dtype\": \"Float\"}",
             "{\"op\": \"cast\", \"inputs\": [\"T2\"], \"outputs\": [\"T4\"], \"dtype\": \"Float\"}",
             add("add", "T3", "T4", "T5")},
            {"T0", "T1"}, {"T5"}),
      "bias epilogue");
  EXPECT_GE(c.pointwise_vector, 1);
  EXPECT_EQ(c.pointwise_interpreter, 0);
  c = passesWithCounts(
      repro({{"T0", "BFloat16", {9, 13}, true},
             {"T1", "BFloat16", {13}, true},
             {"T3", "BFloat16", {1, 13}},
             {"T2", "BFloat16", {9, 13}, true}},
            {"{\"op\": \"broadcast\", \"inputs\": [\"T1\"], \"outputs\": [\"T3\"], \"flags\": [true, false]}",
             add("mul", "T0", "T3", "T2")},
            {"T0", "T1"}, {"T2"}),
      "odd inner broadcast");
  EXPECT_GE(c.pointwise_scalar, 1);
  c = passesWithCounts(
      repro({{"T0", "Half", {12, 40}, true}, {"T1", "Half", {40, 12}}, {"T2", "Half", {40, 12}, true}},
            {"{\"op\": \"permute\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dims\": [1, 0]}",
             "{\"op\": \"exp\", \"inputs\": [\"T1\"], \"outputs\": [\"T2\"]}"},
            {"T0"}, {"T2"}),
      "exp of a permute");
  EXPECT_GE(c.pointwise_tiled, 1);
  c = passesWithCounts(
      repro({{"T0", "Float", {8, 24}, true},
             {"T1", "Float", {8, 24}, true},
             {"T2", "Float", {8, 24}},
             {"T3", "Float", {8, 24}, true}},
            {add("sub", "T0", "T1", "T2"), "{\"op\": \"sin\", \"inputs\": [\"T2\"], \"outputs\": [\"T3\"]}"},
            {"T0", "T1"}, {"T3"}),
      "sin(sub)");
  EXPECT_GE(c.pointwise_interpreter, 1);
  for (std::string op : {"sum", "max", "mean"}) {
    c = passesWithCounts(
        repro({{"T0", "Float", {300, 1000}, true}, {"T1", "Float", {300, -1000}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dims\": [1]}"},
              {"T0"}, {"T1"}),
        op + " rows");
    EXPECT_EQ(c.reduce_row, 1) << op;
    c = passesWithCounts(
        repro({{"T0", "Float", {1000, 136}, true}, {"T1", "Float", {-1000, 136}, true}},
              {"{\"op\": \"" + op + "\", \"inputs\": [\"T0\"], \"outputs\": [\"T1\"], \"dims\": [0]}"},
              {"T0"}, {"T1"}),
        op + " columns");
    EXPECT_EQ(c.reduce_column, 1) << op;
  }
}

TEST(GpuKernels, SeedWithFixUsesTheSpecializedKernels) {
  REQUIRE_GPU();
  std::optional<Fusion> seed = loadFixture("seed/matmul_allreduce_bias.json");
  ASSERT_TRUE(seed.has_value());
  const Fusion& f = *seed;
  cu::resetKernelCounts();
  RunResult r = runAgainstCpu(f, true);
  cu::KernelCounts c = cu::kernelCounts();
  EXPECT_TRUE(r.passed) << explain(r);
  // the allreduce fused into the epilogue, computed once for both ranks
  EXPECT_EQ(c.pointwise_fused_ring, 1);
  EXPECT_EQ(c.pointwise_vector + c.ring_vector, 0);
  EXPECT_EQ(c.pointwise_interpreter + c.pointwise_scalar + c.ring_general + c.ring_scalar, 0);
}

#else
TEST(GpuKernels, SkippedWithoutCuda) { REQUIRE_GPU(); }
#endif

}  // namespace
}  // namespace fc
