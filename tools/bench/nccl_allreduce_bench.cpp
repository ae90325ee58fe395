// Allreduce bus bandwidth through fusecheck's one-rank-per-process NCCL
// communicator (exec/cuda/nccl_rank_communicator.h: non-blocking
// communicator, each call polled to completion, as `run --ranks N --device
// cuda` uses it) versus a plain ncclAllReduce loop (blocking communicator,
// the calls queued back to back and one stream synchronization at the end,
// as nccl-tests times them), 8 B .. 1 GiB, half and float, on this
// machine's GPUs with one process per GPU (the program forks itself).
//
//   nccl_allreduce_bench [--ranks N] [--max-bytes B] [--iters I] [--warmup W]
//
// busbw = algbw * 2(n-1)/n with algbw = bytes / time per call (nccl-tests'
// definition). Rank 0 prints one row per size and dtype; the exit status
// is 0 when every rank finished, 3 otherwise (no GPUs, NCCL error, timeout).
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec/cuda/nccl_rank_communicator.h"
#include "exec/exec_error.h"

namespace {

using Clock = std::chrono::steady_clock;

#define CHECK_CUDA(x)                                                                \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "rank %d: %s: %s\n", g_rank, #x, cudaGetErrorString(e_)); \
      std::exit(3);                                                                  \
    }                                                                                \
  } while (0)
#define CHECK_NCCL(x)                                                                \
  do {                                                                               \
    ncclResult_t r_ = (x);                                                           \
    if (r_ != ncclSuccess) {                                                         \
      std::fprintf(stderr, "rank %d: %s: %s\n", g_rank, #x, ncclGetErrorString(r_)); \
      std::exit(3);                                                                  \
    }                                                                                \
  } while (0)

int g_rank = -1;

bool readAll(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    ssize_t r = ::read(fd, c, n);
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

struct Row {
  size_t bytes;
  const char* dtype;
  double plain_us, plain_busbw, fc_us, fc_busbw;
};

int rankMain(int rank, int n, int in_fd, const std::vector<int>& out_fds, size_t max_bytes, int iters,
             int warmup) {
  g_rank = rank;
  ncclUniqueId ids[2];
  if (rank == 0) {
    CHECK_NCCL(ncclGetUniqueId(&ids[0]));
    CHECK_NCCL(ncclGetUniqueId(&ids[1]));
    for (int fd : out_fds)
      if (::write(fd, ids, sizeof ids) != static_cast<ssize_t>(sizeof ids)) return 3;
  } else if (!readAll(in_fd, ids, sizeof ids)) {
    std::fprintf(stderr, "rank %d: no unique id from rank 0\n", rank);
    return 3;
  }
  CHECK_CUDA(cudaSetDevice(rank));
  ncclComm_t plain = nullptr;
  CHECK_NCCL(ncclCommInitRank(&plain, n, ids[0], rank));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::unique_ptr<fc::exec::cuda::NcclRankCommunicator> fcc;
  try {
    fcc = std::make_unique<fc::exec::cuda::NcclRankCommunicator>(
        std::string(reinterpret_cast<const char*>(&ids[1]), sizeof ids[1]), rank, n, 120, false);
  } catch (const fc::exec::ExecError& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.message.c_str());
    return 3;
  }
  void* buf = nullptr;
  CHECK_CUDA(cudaMalloc(&buf, max_bytes));
  CHECK_CUDA(cudaMemset(buf, 0, max_bytes));
  std::vector<Row> rows;
  const double factor = 2.0 * (n - 1) / n;
  struct T {
    const char* name;
    ncclDataType_t nccl;
    fc::DType dt;
    size_t size;
  } types[] = {{"half", ncclFloat16, fc::DType::Half, 2}, {"float", ncclFloat32, fc::DType::Float, 4}};
  try {
    for (const T& t : types) {
      for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
        if (bytes < t.size) continue;
        size_t count = bytes / t.size;
        int it = bytes >= (size_t(256) << 20) ? std::max(5, iters / 4) : iters;
        // Plain loop (nccl-tests style).
        for (int i = 0; i < warmup; ++i)
          CHECK_NCCL(ncclAllReduce(buf, buf, count, t.nccl, ncclSum, plain, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        auto t0 = Clock::now();
        for (int i = 0; i < it; ++i)
          CHECK_NCCL(ncclAllReduce(buf, buf, count, t.nccl, ncclSum, plain, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        double plain_s = std::chrono::duration<double>(Clock::now() - t0).count() / it;
        // fusecheck's communicator (each call completes before the next).
        fc::exec::CommBuffer b{buf, static_cast<int64_t>(count), t.dt};
        for (int i = 0; i < warmup; ++i)
          fcc->allreduce(std::span<fc::exec::CommBuffer>(&b, 1), fc::exec::ReduceOp::Sum);
        auto t1 = Clock::now();
        for (int i = 0; i < it; ++i)
          fcc->allreduce(std::span<fc::exec::CommBuffer>(&b, 1), fc::exec::ReduceOp::Sum);
        double fc_s = std::chrono::duration<double>(Clock::now() - t1).count() / it;
        rows.push_back(Row{bytes, t.name, plain_s * 1e6, bytes / plain_s / 1e9 * factor, fc_s * 1e6,
                           bytes / fc_s / 1e9 * factor});
      }
    }
  } catch (const fc::exec::ExecError& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.message.c_str());
    return 3;
  }
  CHECK_CUDA(cudaFree(buf));
  fcc.reset();
  CHECK_NCCL(ncclCommDestroy(plain));
  if (rank == 0) {
    int dev = 0;
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    int v = 0;
    ncclGetVersion(&v);
    std::printf("# allreduce (sum), %d processes x 1 GPU (%s), NCCL %d, NCCL_NVLS_ENABLE=%s\n", n, prop.name,
                v, std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "unset");
    std::printf(
        "# busbw = bytes/time * 2(n-1)/n (GB/s); plain: ncclAllReduce loop, one sync at the end; "
        "fusecheck: NcclRankCommunicator::allreduce, each call polled to completion\n");
    std::printf("%12s %6s %12s %12s %12s %12s\n", "bytes", "dtype", "plain_us", "plain_busbw", "fc_us",
                "fc_busbw");
    for (const Row& r : rows)
      std::printf("%12zu %6s %12.2f %12.2f %12.2f %12.2f\n", r.bytes, r.dtype, r.plain_us, r.plain_busbw,
                  r.fc_us, r.fc_busbw);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 0, iters = 20, warmup = 5;
  size_t max_bytes = size_t(1) << 30;
  double limit_s = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--ranks")
      n = std::atoi(argv[i + 1]);
    else if (a == "--max-bytes")
      max_bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--iters")
      iters = std::atoi(argv[i + 1]);
    else if (a == "--warmup")
      warmup = std::atoi(argv[i + 1]);
    else if (a == "--limit")
      limit_s = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--ranks N] [--max-bytes B] [--iters I] [--warmup W] [--limit S]\n",
                   argv[0]);
      return 2;
    }
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (n <= 0) {
    // Count GPUs in a child so that this process never initializes CUDA before forking.
    int p[2];
    if (::pipe(p) != 0) return 3;
    pid_t c = ::fork();
    if (c == 0) {
      int k = 0;
      if (cudaGetDeviceCount(&k) != cudaSuccess) k = 0;
      ssize_t w = ::write(p[1], &k, sizeof k);
      ::_exit(w == sizeof k ? 0 : 1);
    }
    ::close(p[1]);
    if (!readAll(p[0], &n, sizeof n)) n = 0;
    ::close(p[0]);
    ::waitpid(c, nullptr, 0);
  }
  if (n < 2) {
    std::fprintf(stderr, "nccl_allreduce_bench: needs 2 or more GPUs (found %d)\n", n);
    return 3;
  }
  std::vector<int> rd(n, -1), wr(n, -1);
  for (int r = 1; r < n; ++r) {
    int p[2];
    if (::pipe(p) != 0) return 3;
    rd[r] = p[0];
    wr[r] = p[1];
  }
  std::vector<pid_t> pids(n);
  for (int r = 0; r < n; ++r) {
    pid_t c = ::fork();
    if (c == 0) {
      std::vector<int> outs;
      if (r == 0)
        for (int q = 1; q < n; ++q) outs.push_back(wr[q]);
      ::_exit(rankMain(r, n, rd[r], outs, max_bytes, iters, warmup));
    }
    pids[r] = c;
  }
  for (int r = 1; r < n; ++r) {
    ::close(rd[r]);
    ::close(wr[r]);
  }
  int status = 0;
  auto t0 = Clock::now();
  int left = n;
  std::vector<bool> done(n, false);
  while (left > 0) {
    for (int r = 0; r < n; ++r) {
      if (done[r]) continue;
      int st = 0;
      if (::waitpid(pids[r], &st, WNOHANG) == pids[r]) {
        done[r] = true;
        --left;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
          std::fprintf(stderr, "nccl_allreduce_bench: rank %d failed (status %d); stopping the others\n", r,
                       st);
          status = 3;
          for (int q = 0; q < n; ++q)
            if (!done[q]) ::kill(pids[q], SIGKILL);
        }
      }
    }
    if (std::chrono::duration<double>(Clock::now() - t0).count() > limit_s) {
      std::fprintf(stderr, "nccl_allreduce_bench: timed out after %.0f s\n", limit_s);
      for (int q = 0; q < n; ++q)
        if (!done[q]) ::kill(pids[q], SIGKILL);
      status = 3;
      limit_s = 1e18;
    }
    ::usleep(20000);
  }
  return status;
}
