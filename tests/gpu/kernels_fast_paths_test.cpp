// The CUDA backend's dedicated fast paths (label `gpu`; kernels.h,
// kernels_internal.h): transcendental unary ops on Half / BFloat16 through
// lookup tables (bit for bit the CPU executor's fp64 value rounded to the
// dtype, for every one of the 65536 inputs; within 2 ulps of the float
// interpreter where the result is not tiny), copies read transposed
// through the register-transposing tile kernel, split reductions finished
// by their last block (repeated launches reuse the split counters), Half /
// BFloat16 sums through scaled doubles (every finite value, subnormals,
// signed zeros, infinities and NaNs: the fp64 sums' bits), and the
// index divider every specialized kernel uses (IntDiv, checked on the host
// too, so CPU-only CI runs that test).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "exec/cuda/int_div.h"
#include "exec/dtype_convert.h"
#include "exec/host_tensor.h"
#include "exec/op_eval.h"
#include "gpu_test_util.h"
#if FC_HAVE_CUDA
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/kernels.h"
#endif

namespace fc {
namespace {

using namespace gputest;  // NOLINT(google-build-using-namespace)

TEST(GpuIntDiv, MatchesIntegerDivision) {
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 1100; ++d) divisors.push_back(d);
  for (int s = 1; s <= 31; ++s)
    for (int64_t e : {-3, -1, 0, 1, 3}) {
      int64_t d = (int64_t{1} << s) + e;
      if (d >= 1 && d <= (int64_t{1} << 31)) divisors.push_back(static_cast<uint32_t>(d));
    }
  for (uint32_t d : {8192u, 4096u, 130u, 67u, 12345u, 1000003u, 2147483647u}) divisors.push_back(d);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);  // < 2^31
  };
  int64_t bad = 0;
  for (uint32_t d : divisors) {
    exec::cuda::IntDiv div(d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, 0x7fffffffu, 0x7ffffffeu};
    for (int k = 0; k < 200; ++k) ns.push_back(next());
    for (uint32_t n : ns) {
      if (n >= 0x80000000u) continue;
      uint32_t r = 0;
      const uint32_t q = div.divmod(n, r);
      if ((q != n / d || r != n % d) && bad++ < 5)
        ADD_FAILURE() << n << " / " << d << ": " << q << " rem " << r << ", want " << n / d << " rem "
                      << n % d;
    }
  }
  EXPECT_EQ(bad, 0);
}

#if FC_HAVE_CUDA
namespace cu = exec::cuda;
using exec::HostTensor;

bool sameBits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// Turns the specialized kernels back on however a test ends.
struct GeneralKernels {
  GeneralKernels() { cu::setSpecializedKernels(false); }
  ~GeneralKernels() { cu::setSpecializedKernels(true); }
};

// One-instruction program: out (dtype `dt`, contiguous [n]) = op(x) rounded
// to dt, x read from `in` (`n` elements) with `strides`.
cu::PwProgram unaryProgram(OpKind op, bool approx, DType dt, const void* in, void* out,
                           const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  cu::PwProgram p;
  p.rank = static_cast<int>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) p.shape[d] = shape[d];
  p.n_leaves = 1;
  p.leaves[0].data = in;
  p.leaves[0].dtype = dt;
  for (size_t d = 0; d < strides.size(); ++d) p.leaves[0].strides[d] = strides[d];
  p.n_instrs = 1;
  p.instrs[0].op = op;
  p.instrs[0].round_to = dt;
  p.instrs[0].approx_tanh = approx;
  p.instrs[0].nargs = 1;
  p.instrs[0].args[0] = cu::PwRef{cu::PwRef::Leaf, 0, 0};
  p.out = out;
  p.out_dtype = dt;
  return p;
}

// Every value of `dt` (each bit pattern's value; NaNs as one), `reps`
// times over, then `extra` more.
HostTensor everyValue(DType dt, int64_t reps, int64_t extra) {
  HostTensor h(dt, {65536 * reps + extra});
  for (int64_t i = 0; i < h.numel(); ++i) h[i] = exec::fromBits(dt, static_cast<uint64_t>(i % 65536));
  return h;
}

TEST(GpuFastPaths, UnaryTablesAreTheCpuValueForEveryInput) {
  REQUIRE_GPU();
  const OpKind ops[] = {OpKind::Exp,     OpKind::Log,  OpKind::Rsqrt, OpKind::Tanh,
                        OpKind::Sigmoid, OpKind::Gelu, OpKind::Silu,  OpKind::Erf};
  for (DType dt : {DType::Half, DType::BFloat16}) {
    // 17 x 65536 + 5 elements: the shared-memory kernel and a scalar tail;
    // 65536: the gather kernel alone; and a misaligned start.
    HostTensor big = everyValue(dt, 17, 5), small = everyValue(dt, 1, 0);
    cu::DeviceTensor in_big = cu::DeviceTensor::upload(big, nullptr);
    cu::DeviceTensor in_small = cu::DeviceTensor::upload(small, nullptr);
    cu::DeviceTensor out(dt, {big.numel() + 1}), out2(dt, {big.numel() + 1});
    for (OpKind op : ops) {
      for (bool approx : {false, true}) {
        if (approx && op != OpKind::Gelu) continue;
        std::string what = std::string(opName(op)) + (approx ? " tanh " : " ") + std::string(dtypeName(dt));
        struct Case {
          const void* in;
          int64_t n;
          int64_t shift;  // elements: misaligned output and input
        } cases[] = {{in_big.data(), big.numel(), 0},
                     {in_small.data(), small.numel(), 0},
                     {static_cast<const char*>(in_big.data()) + 2, 65536, 1}};
        for (const Case& c : cases) {
          void* o = static_cast<char*>(out.data()) + 2 * c.shift;
          void* o2 = static_cast<char*>(out2.data()) + 2 * c.shift;
          cu::resetKernelCounts();
          cu::launchPointwise(unaryProgram(op, approx, dt, c.in, o, {c.n}, {1}));
          EXPECT_EQ(cu::kernelCounts().pointwise_table, 1) << what;
          {
            GeneralKernels general;
            cu::launchPointwise(unaryProgram(op, approx, dt, c.in, o2, {c.n}, {1}));
          }
          HostTensor got = out.download(nullptr), interp = out2.download(nullptr);
          int64_t bad = 0, far = 0;
          uint64_t max_ulp = 0;
          for (int64_t i = 0; i < c.n; ++i) {
            const double x = exec::fromBits(dt, static_cast<uint64_t>((i + c.shift) % 65536));
            const double want = exec::roundTo(dt, exec::unaryOpValue(op, x, approx));
            const double g = got[i + c.shift], v = interp[i + c.shift];
            if (!sameBits(g, want) && bad++ < 3)
              ADD_FAILURE() << what << ": x = " << x << " table " << g << ", CPU " << want;
            const uint64_t u = exec::ulpDistance(dt, g, v);
            max_ulp = std::max(max_ulp, u);
            const bool tiny = std::isfinite(want) && std::fabs(want) < 0x1p-6;
            if (!tiny && u > 2 && far++ < 3)
              ADD_FAILURE() << what << ": x = " << x << " table " << g << ", interpreter " << v << " (" << u
                            << " ulps)";
          }
          EXPECT_EQ(bad, 0) << what << " n " << c.n << ": elements differing from the CPU";
          EXPECT_EQ(far, 0) << what << " n " << c.n << ": elements > 2 ulps from the interpreter";
          if (c.n == small.numel() && c.shift == 0)
            std::printf("table %s: interpreter within %llu ulps of the CPU value\n", what.c_str(),
                        static_cast<unsigned long long>(max_ulp));
        }
      }
    }
  }
}

TEST(GpuFastPaths, TableNeedsAMatchingDTypeAndAContiguousLeaf) {
  REQUIRE_GPU();
  HostTensor x = everyValue(DType::Half, 1, 0);
  cu::DeviceTensor in = cu::DeviceTensor::upload(x, nullptr);
  cu::DeviceTensor outf(DType::Float, {65536}), outh(DType::Half, {65536});
  {
    cu::PwProgram p = unaryProgram(OpKind::Exp, false, DType::Half, in.data(), outf.data(), {65536}, {1});
    p.out_dtype = DType::Float;  // float output: the catalog's float evaluation
    cu::resetKernelCounts();
    cu::launchPointwise(p);
    EXPECT_EQ(cu::kernelCounts().pointwise_table, 0);
    EXPECT_EQ(cu::kernelCounts().pointwise_vector, 1);
  }
  {
    cu::PwProgram p =
        unaryProgram(OpKind::Exp, false, DType::Half, in.data(), outh.data(), {256, 256}, {1, 256});
    cu::resetKernelCounts();  // read transposed: the tiled kernel
    cu::launchPointwise(p);
    EXPECT_EQ(cu::kernelCounts().pointwise_table, 0);
    EXPECT_EQ(cu::kernelCounts().pointwise_tiled, 1);
  }
}

TEST(GpuFastPaths, TransposedCopiesOfEveryWidth) {
  REQUIRE_GPU();
  struct Shape3 {
    int64_t batch, rows, cols;
  };
  for (DType dt : {DType::Half, DType::BFloat16, DType::Float}) {
    for (Shape3 s : {Shape3{1, 128, 128}, Shape3{1, 136, 200}, Shape3{1, 8, 1024}, Shape3{1, 1000, 24},
                     Shape3{3, 72, 136}, Shape3{2, 256, 8}}) {
      const int64_t n = s.batch * s.rows * s.cols;
      HostTensor x(dt, {n});
      for (int64_t i = 0; i < n; ++i) x[i] = exec::roundTo(dt, std::sin(0.1 * static_cast<double>(i)) * 100);
      cu::DeviceTensor in = cu::DeviceTensor::upload(x, nullptr);
      cu::DeviceTensor out(dt, {n}), out2(dt, {n});
      // out[b, c, r] = x[b, r, c]
      cu::PwProgram p;
      p.rank = 3;
      p.shape[0] = s.batch;
      p.shape[1] = s.cols;
      p.shape[2] = s.rows;
      p.n_leaves = 1;
      p.leaves[0].data = in.data();
      p.leaves[0].dtype = dt;
      p.leaves[0].strides[0] = s.rows * s.cols;
      p.leaves[0].strides[1] = 1;
      p.leaves[0].strides[2] = s.cols;
      p.n_instrs = 1;
      p.instrs[0].op = OpKind::Set;
      p.instrs[0].round_to = dt;
      p.instrs[0].nargs = 1;
      p.instrs[0].args[0] = cu::PwRef{cu::PwRef::Leaf, 0, 0};
      p.out = out.data();
      p.out_dtype = dt;
      std::string what = std::string(dtypeName(dt)) + " " + std::to_string(s.batch) + "x" +
                         std::to_string(s.rows) + "x" + std::to_string(s.cols);
      cu::resetKernelCounts();
      cu::launchPointwise(p);
      EXPECT_EQ(cu::kernelCounts().pointwise_tiled, 1) << what;
      {
        GeneralKernels general;
        p.out = out2.data();
        cu::launchPointwise(p);
      }
      HostTensor got = out.download(nullptr), ref = out2.download(nullptr);
      int64_t bad = 0;
      for (int64_t b = 0; b < s.batch; ++b)
        for (int64_t c = 0; c < s.cols; ++c)
          for (int64_t r = 0; r < s.rows; ++r) {
            const int64_t o = (b * s.cols + c) * s.rows + r;
            const double want = x[(b * s.rows + r) * s.cols + c];
            if ((!sameBits(got[o], want) || !sameBits(ref[o], want)) && bad++ < 3)
              ADD_FAILURE() << what << ": out[" << b << ", " << c << ", " << r << "] = " << got[o]
                            << ", general " << ref[o] << ", want " << want;
          }
      EXPECT_EQ(bad, 0) << what;
    }
  }
}

// act(b(x, y)) over Half values in packed Half arithmetic: the general
// interpreter's values for every element (NaNs as NaN), with a second
// operand read whole, broadcast along rows, or a constant; with 1033
// columns the whole operands coalesce into one dim with a scalar tail.
TEST(GpuFastPaths, PackedHalfMatchesTheInterpreter) {
  REQUIRE_GPU();
  const int64_t rows = 37;
  for (int64_t cols : {int64_t{1032}, int64_t{1033}}) {
    const int64_t n = rows * cols;
    HostTensor x(DType::Half, {n}), z(DType::Half, {n}), y(DType::Half, {cols});
    for (int64_t i = 0; i < n; ++i) {
      x[i] = exec::fromBits(DType::Half, static_cast<uint64_t>((i * 2654435761u) % 65536));
      z[i] = exec::fromBits(DType::Half, static_cast<uint64_t>((i * 40503u + 11) % 65536));
    }
    for (int64_t i = 0; i < cols; ++i)
      y[i] = exec::fromBits(DType::Half, static_cast<uint64_t>((i * 977u + 7) % 65536));
    cu::DeviceTensor dx = cu::DeviceTensor::upload(x, nullptr), dz = cu::DeviceTensor::upload(z, nullptr);
    cu::DeviceTensor dy = cu::DeviceTensor::upload(y, nullptr);
    cu::DeviceTensor out(DType::Half, {n}), out2(DType::Half, {n});
    for (OpKind bin : {OpKind::Add, OpKind::Sub, OpKind::Mul})
      for (OpKind act : {OpKind::Set, OpKind::Relu, OpKind::Neg, OpKind::Abs})
        for (int second : {0, 1, 2}) {  // 0: a whole operand, 1: a broadcast row, 2: a constant
          if (second == 1 && cols % 8 != 0) continue;  // not vectorizable: the scalar catalog kernel
          cu::PwProgram p;
          p.rank = 2;
          p.shape[0] = rows;
          p.shape[1] = cols;
          p.n_leaves = second == 2 ? 1 : 2;
          p.leaves[0].data = dx.data();
          p.leaves[0].dtype = DType::Half;
          p.leaves[0].strides[0] = cols;
          p.leaves[0].strides[1] = 1;
          p.leaves[1].data = second == 0 ? dz.data() : dy.data();
          p.leaves[1].dtype = DType::Half;
          p.leaves[1].strides[0] = second == 0 ? cols : 0;
          p.leaves[1].strides[1] = 1;
          p.instrs[0].op = bin;
          p.instrs[0].round_to = DType::Half;
          p.instrs[0].nargs = 2;
          p.instrs[0].args[0] = cu::PwRef{cu::PwRef::Leaf, 0, 0};
          p.instrs[0].args[1] =
              second == 2 ? cu::PwRef{cu::PwRef::Const, 0, -1.5} : cu::PwRef{cu::PwRef::Leaf, 1, 0};
          p.n_instrs = 1;
          if (act != OpKind::Set) {
            p.instrs[1].op = act;
            p.instrs[1].round_to = DType::Half;
            p.instrs[1].nargs = 1;
            p.instrs[1].args[0] = cu::PwRef{cu::PwRef::Reg, 0, 0};
            p.n_instrs = 2;
          }
          p.out = out.data();
          p.out_dtype = DType::Half;
          const std::string what = std::string(opName(bin)) + " " + std::string(opName(act)) + " operand " +
                                   std::to_string(second) + " cols " + std::to_string(cols);
          cu::resetKernelCounts();
          cu::launchPointwise(p);
          EXPECT_EQ(cu::kernelCounts().pointwise_vector, 1) << what;
          {
            GeneralKernels general;
            p.out = out2.data();
            cu::launchPointwise(p);
          }
          HostTensor got = out.download(nullptr), ref = out2.download(nullptr);
          int64_t bad = 0;
          for (int64_t i = 0; i < n; ++i)
            if (!sameBits(got[i], ref[i]) && bad++ < 3)
              ADD_FAILURE() << what << ": element " << i << " = " << got[i] << ", interpreter " << ref[i];
          EXPECT_EQ(bad, 0) << what;
        }
  }
}

// Split reductions: partials combined by the last block of each output;
// the counters it resets serve the next launch.
TEST(GpuFastPaths, SplitReductionsRepeat) {
  REQUIRE_GPU();
  struct Case {
    int64_t rows, cols;
    int red;  // 0: columns (reduce dim 0), 1: rows, 2: everything
  };
  for (Case k : {Case{1, 1 << 21, 2}, Case{3, 300000, 1}, Case{40000, 64, 0}, Case{9000, 1000, 0}}) {
    const int64_t n = k.rows * k.cols;
    HostTensor x(DType::Half, {n});
    for (int64_t i = 0; i < n; ++i) x[i] = exec::roundTo(DType::Half, ((i * 37) % 201 - 100) / 128.0);
    cu::DeviceTensor in = cu::DeviceTensor::upload(x, nullptr);
    const int64_t n_out = k.red == 2 ? 1 : k.red == 1 ? k.rows : k.cols;
    cu::DeviceTensor out(DType::Float, {n_out});
    cu::ReduceArgs a;
    a.in = in.data();
    a.in_dtype = DType::Half;
    a.rank = 2;
    a.out = out.data();
    a.out_dtype = DType::Float;
    a.op = OpKind::Sum;
    if (k.red == 0) {  // [cols kept, rows reduced]
      a.shape[0] = k.cols, a.strides[0] = 1, a.shape[1] = k.rows, a.strides[1] = k.cols, a.n_red = 1;
    } else {
      a.shape[0] = k.rows, a.strides[0] = k.cols, a.shape[1] = k.cols, a.strides[1] = 1;
      a.n_red = k.red == 2 ? 2 : 1;
    }
    std::vector<double> want(n_out, 0);  // exact: multiples of 2^-7, small sums
    for (int64_t r = 0; r < k.rows; ++r)
      for (int64_t c = 0; c < k.cols; ++c) want[k.red == 2 ? 0 : k.red == 1 ? r : c] += x[r * k.cols + c];
    for (int rep = 0; rep < 3; ++rep) {
      cu::launchReduce(a);
      HostTensor got = out.download(nullptr);
      int64_t bad = 0;
      for (int64_t o = 0; o < n_out; ++o)
        if (got[o] != exec::roundTo(DType::Float, want[o]) && bad++ < 3)
          ADD_FAILURE() << k.rows << "x" << k.cols << " red " << k.red << " rep " << rep << ": output " << o
                        << " = " << got[o] << ", want " << want[o];
      EXPECT_EQ(bad, 0);
    }
  }
}

// Half / BFloat16 sums run on the values scaled by 2^-896 (kernels_reduce.cu
// scaledOf) and are scaled back: the fp64 sums' bits, for every finite
// value (subnormals and signed zeros included), and infinities / NaNs
// through the exact conversion. Values chosen so that every fp64 sum is
// exact (any order gives the same bits); outputs in Double show them all.
TEST(GpuFastPaths, ScaledHalfAndBFloat16SumsAreTheFp64Sums) {
  REQUIRE_GPU();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const int64_t rows = 512, cols = 256, n = rows * cols;
  struct Case {
    DType dt;
    const char* what;
    uint32_t exp_lo, exp_hi;  // exponent fields used
  };
  for (Case k : {Case{DType::Half, "half, every finite value", 0, 30},
                 Case{DType::BFloat16, "bf16 2^-17..2^13", 110, 140},
                 Case{DType::BFloat16, "bf16 subnormals and tiny", 0, 30}}) {
    const bool half = k.dt == DType::Half;
    const uint32_t mant_bits = half ? 10 : 7, span = k.exp_hi - k.exp_lo + 1;
    for (int planted = 0; planted < 2; ++planted) {
      HostTensor x(k.dt, {rows, cols});
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t z = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull >> 17;
        const uint32_t sign = z & 1, e = k.exp_lo + static_cast<uint32_t>(z >> 1) % span;
        const uint32_t m = static_cast<uint32_t>(z >> 9) & ((1u << mant_bits) - 1);
        x[i] = exec::fromBits(k.dt, sign << 15 | e << mant_bits | m);
      }
      if (planted) {  // row 3: +inf; row 7: +inf and -inf; row 9: NaN; column 5: -inf
        x[3 * cols + 100] = kInf;
        x[7 * cols + 1] = kInf;
        x[7 * cols + 200] = -kInf;
        x[9 * cols + 17] = kNaN;
        x[300 * cols + 5] = -kInf;
      }
      cu::DeviceTensor in = cu::DeviceTensor::upload(x, nullptr);
      for (int red = 0; red < 2; ++red) {  // 0: columns (reduce dim 0), 1: rows
        const int64_t n_out = red ? rows : cols;
        std::vector<double> want(n_out, 0);  // fp64 in index order (exact)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) want[red ? r : c] += x[r * cols + c];
        cu::DeviceTensor out(DType::Double, {n_out});
        cu::ReduceArgs a;
        a.in = in.data();
        a.in_dtype = k.dt;
        a.rank = 2;
        a.n_red = 1;
        a.out = out.data();
        a.out_dtype = DType::Double;
        a.op = OpKind::Sum;
        if (red) {
          a.shape[0] = rows, a.strides[0] = cols, a.shape[1] = cols, a.strides[1] = 1;
        } else {
          a.shape[0] = cols, a.strides[0] = 1, a.shape[1] = rows, a.strides[1] = cols;
        }
        cu::resetKernelCounts();
        cu::launchReduce(a);
        EXPECT_EQ(cu::kernelCounts().reduce_general, 0) << k.what;
        HostTensor got = out.download(nullptr);
        int64_t bad = 0;
        for (int64_t o = 0; o < n_out; ++o)
          if (!sameBits(got[o], want[o]) && bad++ < 3)
            ADD_FAILURE() << k.what << (planted ? " with inf / NaN" : "") << (red ? " row " : " column ") << o
                          << " = " << got[o] << ", fp64 sum " << want[o];
        EXPECT_EQ(bad, 0) << k.what;
      }
    }
  }
}
#endif

}  // namespace
}  // namespace fc
