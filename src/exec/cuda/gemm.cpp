// cuBLAS matrix products (see gemm.h).
#include "exec/cuda/gemm.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "exec/cuda/cublas_api.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels.h"
#include "exec/exec_error.h"

namespace fc::exec::cuda {

struct GemmChoice {
  bool use_lt = false;
  cublasLtMatmulAlgo_t algo{};
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  std::string report;
  GemmChoice() = default;
  GemmChoice(const GemmChoice&) = delete;
  GemmChoice& operator=(const GemmChoice&) = delete;
  ~GemmChoice() {
    const CublasLtApi* lt = cublasLtApi();
    if (!lt) return;
    if (desc) lt->descDestroy(desc);
    for (cublasLtMatrixLayout_t l : {la, lb, lc})
      if (l) lt->layoutDestroy(l);
  }
};

namespace {

constexpr size_t kLtWorkspace = size_t{64} << 20;

bool autotuneEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("FC_GEMM_AUTOTUNE");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

#define FC_CUBLAS_LT(call)                                           \
  do {                                                               \
    if ((call) != CUBLAS_STATUS_SUCCESS) throw LtUnavailable{#call}; \
  } while (0)
struct LtUnavailable {
  const char* what;
};

cudaDataType_t cudaType(DType t) {
  switch (t) {
    case DType::Half: return CUDA_R_16F;
    case DType::BFloat16: return CUDA_R_16BF;
    case DType::Float: return CUDA_R_32F;
    default: return CUDA_R_64F;
  }
}

}  // namespace

Blas::Blas() {
  cublasHandle_t h = nullptr;
  FC_CUBLAS(cublasApi().create(&h));
  handle_ = h;
}

Blas::~Blas() {
  tuned_.clear();
  if (lt_) cublasLtApi()->destroy(static_cast<cublasLtHandle_t>(lt_));
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasApi().destroy(static_cast<cublasHandle_t>(handle_));
}

bool Blas::supports(DType ab, DType c) {
  switch (ab) {
    case DType::Half:
    case DType::BFloat16: return c == ab || c == DType::Float;
    case DType::Float: return c == DType::Float;
    case DType::Double: return c == DType::Double;
    default: return false;
  }
}

void Blas::gemm(const void* A, const void* B, void* C, DType ab, DType c, int64_t M, int64_t N, int64_t K,
                int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, bool b_transposed,
                void* stream, bool a_transposed) {
  if (!supports(ab, c)) fail("cuBLAS matmul does not support these dtypes", {}, DiagCode::CudaError);
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX || batch > INT_MAX)
    fail("matmul dimensions exceed cuBLAS's 32-bit sizes", {}, DiagCode::CudaError);
  if (M == 0 || N == 0 || batch == 0) return;
  auto h = static_cast<cublasHandle_t>(handle_);
  auto s = static_cast<cudaStream_t>(stream);
  FC_CUBLAS(cublasApi().setStream(h, s));
  bool dbl = ab == DType::Double;
  cublasComputeType_t ct = dbl ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  float alpha_f = 1.0f, beta_f = 0.0f;
  double alpha_d = 1.0, beta_d = 0.0;
  const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = dbl ? static_cast<const void*>(&beta_d) : &beta_f;
  if (K == 0) {  // cuBLAS leaves C untouched with k = 0: the product is zeros
    int64_t bytes = batch * M * N * dtypeBytes(c);
    FC_CUDA(cudaMemsetAsync(C, 0, static_cast<size_t>(bytes), s));
    return;
  }
  // Column-major view: C^T (N x M, ldc N) = op(B)^T (N x K) * A^T (K x M, lda K).
  cublasOperation_t opb = b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opa = a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldb = static_cast<int>(b_transposed ? K : N);
  int lda = static_cast<int>(a_transposed ? M : K);
  auto plain = [&](void* out) {
    FC_CUBLAS(cublasApi().gemmStridedBatchedEx(
        h, opb, opa, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), alpha, B, cudaType(ab),
        ldb, stride_b, A, cudaType(ab), lda, stride_a, beta, out, cudaType(c), static_cast<int>(N), stride_c,
        static_cast<int>(batch), ct, CUBLAS_GEMM_DEFAULT));
  };
  const CublasLtApi* lt = cublasLtApi();
  bool tune =
      !dbl && lt && autotuneEnabled() &&
      static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) * static_cast<double>(batch) >=
          8589934592.0;
  if (!tune) {
    plain(C);
    return;
  }
  auto ltRun = [&](const GemmChoice& g, const cublasLtMatmulAlgo_t& algo, void* out) {
    return lt->matmul(static_cast<cublasLtHandle_t>(lt_), g.desc, &alpha_f, B, g.la, A, g.lb, &beta_f, out,
                      g.lc, out, g.lc, &algo, workspace_, kLtWorkspace, s);
  };
  Key key{static_cast<int>(ab), static_cast<int>(c), M, N, K, batch, stride_a, stride_b, stride_c,
          b_transposed,         a_transposed};
  if (auto it = tuned_.find(key); it != tuned_.end()) {
    const GemmChoice& g = *it->second;
    if (g.use_lt && ltRun(g, g.algo, C) == CUBLAS_STATUS_SUCCESS) return;
    plain(C);
    return;
  }
  // Tune: the default algorithm's result in C is the reference; candidates
  // run into a scratch buffer and count only when bit-identical to it.
  auto g = std::make_shared<GemmChoice>();
  tuned_[key] = g;
  plain(C);
  const int64_t bytes = batch * M * N * static_cast<int64_t>(dtypeBytes(c));
  char shape[160];
  std::snprintf(shape, sizeof shape, "%lldx%lldx%lld batch %lld%s%s", static_cast<long long>(M),
                static_cast<long long>(N), static_cast<long long>(K), static_cast<long long>(batch),
                a_transposed ? " A^T" : "", b_transposed ? " B^T" : "");
  void* scratch = nullptr;
  if (cudaMalloc(&scratch, static_cast<size_t>(bytes)) != cudaSuccess) {
    cudaGetLastError();
    g->report = std::string(shape) + ": default algorithm (no memory to tune)";
    return;
  }
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  FC_CUDA(cudaEventCreate(&e0));
  FC_CUDA(cudaEventCreate(&e1));
  auto timeMs = [&](const auto& fn) {  // median of 3 after a warm-up
    fn();
    std::vector<float> t;
    for (int i = 0; i < 3; ++i) {
      FC_CUDA(cudaEventRecord(e0, s));
      fn();
      FC_CUDA(cudaEventRecord(e1, s));
      FC_CUDA(cudaEventSynchronize(e1));
      float ms = 0;
      FC_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[1];
  };
  float best = timeMs([&] { plain(scratch); });
  char line[256];
  std::snprintf(line, sizeof line, "%s: default algorithm %.4f ms", shape, best);
  g->report = line;
  int n_algos = 0, identical = 0;
  try {
    if (!lt_) {
      cublasLtHandle_t lh = nullptr;
      FC_CUBLAS_LT(lt->create(&lh));
      lt_ = lh;
      if (cudaMalloc(&workspace_, kLtWorkspace) != cudaSuccess) {
        cudaGetLastError();
        workspace_ = nullptr;
        throw LtUnavailable{"workspace"};
      }
    }
    if (!workspace_) throw LtUnavailable{"workspace"};
    FC_CUBLAS_LT(lt->descCreate(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    int32_t ta = opb, tb = opa;
    FC_CUBLAS_LT(lt->descSet(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    FC_CUBLAS_LT(lt->descSet(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    // cuBLAS's A is our B (N x K after op), its B our A (K x M after op).
    FC_CUBLAS_LT(lt->layoutCreate(&g->la, cudaType(ab), b_transposed ? K : N, b_transposed ? N : K, ldb));
    FC_CUBLAS_LT(lt->layoutCreate(&g->lb, cudaType(ab), a_transposed ? M : K, a_transposed ? K : M, lda));
    FC_CUBLAS_LT(lt->layoutCreate(&g->lc, cudaType(c), N, M, N));
    if (batch > 1) {
      int32_t bc = static_cast<int32_t>(batch);
      for (auto [l, st] :
           {std::pair{g->la, stride_b}, std::pair{g->lb, stride_a}, std::pair{g->lc, stride_c}}) {
        FC_CUBLAS_LT(lt->layoutSet(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
        FC_CUBLAS_LT(lt->layoutSet(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof st));
      }
    }
    cublasLtMatmulPreference_t pref = nullptr;
    FC_CUBLAS_LT(lt->prefCreate(&pref));
    size_t ws = kLtWorkspace;
    lt->prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t res[16] = {};
    cublasStatus_t hs = lt->heuristic(static_cast<cublasLtHandle_t>(lt_), g->desc, g->la, g->lb, g->lc, g->lc,
                                      pref, 16, res, &n_algos);
    lt->prefDestroy(pref);
    if (hs != CUBLAS_STATUS_SUCCESS) n_algos = 0;
    int chosen = -1;
    float chosen_ms = 0;
    for (int i = 0; i < n_algos; ++i) {
      if (res[i].state != CUBLAS_STATUS_SUCCESS || res[i].workspaceSize > kLtWorkspace) continue;
      if (ltRun(*g, res[i].algo, scratch) != CUBLAS_STATUS_SUCCESS) continue;
      if (countDifferentWords(scratch, C, bytes, stream) != 0) continue;
      ++identical;
      float ms = timeMs([&] { ltRun(*g, res[i].algo, scratch); });
      if (ms < 0.99f * best) {
        best = ms;
        chosen = i;
        chosen_ms = ms;
      }
    }
    if (chosen >= 0) {
      g->use_lt = true;
      g->algo = res[chosen].algo;
      std::snprintf(line, sizeof line, "; cublasLt heuristic %d of %d: %.4f ms", chosen + 1, n_algos,
                    chosen_ms);
      g->report += line;
    }
  } catch (const LtUnavailable& u) {
    g->report += std::string("; cublasLt unavailable (") + u.what + ")";
  }
  std::snprintf(line, sizeof line, " (%d of %d cublasLt candidates bit-identical)", identical, n_algos);
  g->report += line;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(scratch);
}

std::string Blas::tuningReport() const {
  std::string r;
  for (const auto& [k, g] : tuned_) r += g->report + "\n";
  return r;
}

}  // namespace fc::exec::cuda
