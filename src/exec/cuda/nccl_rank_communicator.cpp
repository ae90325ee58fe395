// One NCCL rank per process (see nccl_rank_communicator.h).
#if FC_HAVE_NCCL
#include "exec/cuda/nccl_rank_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/nccl_communicator.h"
#include "exec/exec_error.h"
#include "exec/multirank/unsupported.h"
#include "support/internal_error.h"

namespace fc::exec::cuda {
namespace {

using Clock = std::chrono::steady_clock;

ncclRedOp_t ncclOpOf(ReduceOp op) { return static_cast<ncclRedOp_t>(ncclRedOpOf(op)); }
void requireReducible(DType t) { requireNcclReducible(t); }

void requireOne(size_t n) { FC_CHECK(n == 1, "a one-rank-per-process communicator takes one buffer"); }
// One buffer of a dtype NCCL reduces.
void requireOneReducible(std::span<const CommBuffer> bufs) {
  requireOne(bufs.size());
  requireReducible(bufs[0].dtype);
}

Clock::time_point after(double s) {
  return Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

}  // namespace

std::string NcclRankCommunicator::newUniqueId() {
  ncclUniqueId id;
  FC_NCCL(ncclGetUniqueId(&id));
  return std::string(reinterpret_cast<const char*>(&id), sizeof id);
}

NcclRankCommunicator::NcclRankCommunicator(const std::string& unique_id, int64_t rank, int64_t world,
                                           double timeout_s, bool inject_error)
    : rank_(rank), world_(world), timeout_s_(timeout_s), inject_error_(inject_error) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // never NVLink multicast
  if (unique_id.size() != sizeof(ncclUniqueId))
    fail("rank 0 sent a malformed NCCL unique id", {}, DiagCode::RankFailed);
  ncclUniqueId id;
  std::memcpy(&id, unique_id.data(), sizeof id);
  FC_CUDA(cudaGetDevice(&device_));
  cudaStream_t s = nullptr;
  FC_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_ = s;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t c = nullptr;
  ncclResult_t r = ncclCommInitRankConfig(&c, static_cast<int>(world), id, static_cast<int>(rank), &config);
  comm_ = c;
  if (r != ncclSuccess && r != ncclInProgress) {
    if (c) ncclCommAbort(c);
    comm_ = nullptr;
    aborted_ = true;
    fail(std::string("ncclCommInitRankConfig failed: ") + ncclGetErrorString(r), {}, DiagCode::CudaError);
  }
  complete(ncclSuccess, "ncclCommInitRankConfig");
}

NcclRankCommunicator::~NcclRankCommunicator() {
  auto c = static_cast<ncclComm_t>(comm_);
  if (c && !aborted_) {
    ncclResult_t fr = ncclCommFinalize(c);
    bool ok = fr == ncclSuccess || fr == ncclInProgress;
    auto deadline = after(std::min(timeout_s_, 30.0));
    ncclResult_t st = ok ? ncclInProgress : fr;
    while (ok && Clock::now() < deadline) {
      if (ncclCommGetAsyncError(c, &st) != ncclSuccess || st != ncclInProgress) break;
      std::this_thread::yield();
    }
    if (st == ncclSuccess)
      ncclCommDestroy(c);
    else
      ncclCommAbort(c);
  }
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void NcclRankCommunicator::abort() {
  // The device may be left stuck (a kernel waiting for a dead peer): if the
  // abort or the cleanup after it blocks, the process still ends (exit 3).
  multirank::armFinalWatchdog(std::min(timeout_s_, 30.0) + 10,
                              "rank " + std::to_string(rank_) + ": cleanup after ncclCommAbort");
  if (!aborted_ && comm_) ncclCommAbort(static_cast<ncclComm_t>(comm_));
  aborted_ = true;
}

void NcclRankCommunicator::complete(int result, const char* what) {
  auto c = static_cast<ncclComm_t>(comm_);
  auto r = static_cast<ncclResult_t>(result);
  std::string who = "rank " + std::to_string(rank_) + ": ";
  if (aborted_ || !c)
    fail(who + std::string(what) + ": the NCCL communicator was aborted", {}, DiagCode::CudaError);
  auto bad = [&](const std::string& msg, DiagCode code) {
    const char* last = ncclGetLastError(c);
    abort();
    fail(who + msg + (last && *last ? std::string(" (") + last + ")" : std::string()) +
             "; communicator aborted",
         {}, code);
  };
  if (r != ncclSuccess && r != ncclInProgress)
    bad(std::string(what) + " failed: " + ncclGetErrorString(r), DiagCode::CudaError);
  multirank::WatchdogScope watch(timeout_s_, who + what);
  auto deadline = after(timeout_s_);
  ncclResult_t st = ncclInProgress;
  for (;;) {  // enqueued (non-blocking communicators return before that)
    ncclResult_t q = ncclCommGetAsyncError(c, &st);
    if (q != ncclSuccess)
      bad(std::string("ncclCommGetAsyncError failed: ") + ncclGetErrorString(q), DiagCode::CudaError);
    if (st == ncclSuccess) break;
    if (st != ncclInProgress)
      bad(std::string(what) + " failed: " + ncclGetErrorString(st), DiagCode::CudaError);
    if (Clock::now() > deadline)
      bad(std::string(what) + " did not complete within --rank-timeout", DiagCode::RankFailed);
    std::this_thread::yield();
  }
  for (;;) {  // completed on the stream, watching for asynchronous (remote) errors
    cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(stream_));
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) bad(std::string(what) + ": " + cudaGetErrorString(e), DiagCode::CudaError);
    if (ncclCommGetAsyncError(c, &st) == ncclSuccess && st != ncclSuccess && st != ncclInProgress)
      bad(std::string(what) + " failed: " + ncclGetErrorString(st), DiagCode::CudaError);
    if (Clock::now() > deadline)
      bad(std::string(what) + " did not complete within --rank-timeout (a peer stopped answering)",
          DiagCode::RankFailed);
    std::this_thread::yield();
  }
}

#define FC_RANK_CALL(call) complete(static_cast<int>(call), #call)

// The datatype of the next call: an invalid one once when an NCCL error is
// injected (FC_FAULT_INJECT=rank:R:nccl-error), so that NCCL itself fails
// the call (ncclInvalidArgument). Bool is byte movement (ncclUint8).
int NcclRankCommunicator::typeFor(DType t) {
  if (inject_error_) {
    inject_error_ = false;
    return 255;
  }
  return ncclDataTypeOf(t);
}

void NcclRankCommunicator::allreduce(std::span<CommBuffer> bufs, ReduceOp op) {
  requireOneReducible(bufs);
  auto c = static_cast<ncclComm_t>(comm_);
  auto s = static_cast<cudaStream_t>(stream_);
  FC_RANK_CALL(ncclAllReduce(bufs[0].data, bufs[0].data, bufs[0].count,
                             static_cast<ncclDataType_t>(typeFor(bufs[0].dtype)), ncclOpOf(op), c, s));
}

void NcclRankCommunicator::reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv,
                                         ReduceOp op) {
  requireOne(recv.size());
  requireOneReducible(send);
  auto c = static_cast<ncclComm_t>(comm_);
  auto s = static_cast<cudaStream_t>(stream_);
  FC_RANK_CALL(ncclReduceScatter(send[0].data, recv[0].data, recv[0].count,
                                 static_cast<ncclDataType_t>(typeFor(recv[0].dtype)), ncclOpOf(op), c, s));
}

void NcclRankCommunicator::reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) {
  requireOneReducible(bufs);
  auto c = static_cast<ncclComm_t>(comm_);
  auto s = static_cast<cudaStream_t>(stream_);
  FC_RANK_CALL(ncclReduce(bufs[0].data, bufs[0].data, bufs[0].count,
                          static_cast<ncclDataType_t>(typeFor(bufs[0].dtype)), ncclOpOf(op),
                          static_cast<int>(root), c, s));
}

void NcclRankCommunicator::allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) {
  requireOne(send.size());
  requireOne(recv.size());
  auto c = static_cast<ncclComm_t>(comm_);
  auto s = static_cast<cudaStream_t>(stream_);
  size_t bytes = static_cast<size_t>(send[0].count) * dtypeBytes(send[0].dtype);
  FC_RANK_CALL(ncclAllGather(send[0].data, recv[0].data, bytes,
                             static_cast<ncclDataType_t>(typeFor(DType::Bool)), c, s));
}

void NcclRankCommunicator::broadcast(std::span<CommBuffer> bufs, int64_t root) {
  requireOne(bufs.size());
  auto c = static_cast<ncclComm_t>(comm_);
  auto s = static_cast<cudaStream_t>(stream_);
  size_t bytes = static_cast<size_t>(bufs[0].count) * dtypeBytes(bufs[0].dtype);
  FC_RANK_CALL(ncclBroadcast(bufs[0].data, bufs[0].data, bytes, ncclUint8, static_cast<int>(root), c, s));
}

void NcclRankCommunicator::gather(std::span<const CommBuffer>, CommBuffer, int64_t) {
  multirank::failUnsupportedInMultiProcess("Gather");
}
void NcclRankCommunicator::scatter(CommBuffer, int64_t, std::span<CommBuffer>) {
  multirank::failUnsupportedInMultiProcess("Scatter");
}
void NcclRankCommunicator::sendRecv(CommBuffer, int64_t, CommBuffer, int64_t) {
  multirank::failUnsupportedInMultiProcess("SendRecv");
}

#undef FC_RANK_CALL

// ------------------------------------------------------------ host staging

namespace {

DeviceTensor toDevice(const CommBuffer& b, MemoryBudget* budget) {
  HostTensor h(b.dtype, Shape{b.count}, budget);
  std::memcpy(h.data(), b.data, static_cast<size_t>(b.count) * sizeof(double));
  return DeviceTensor::upload(h, budget);
}

void toHost(const DeviceTensor& d, const CommBuffer& b, MemoryBudget* budget) {
  HostTensor h = d.download(budget);
  FC_CHECK(h.numel() == b.count, "staged buffer size changed");
  std::memcpy(b.data, h.data(), static_cast<size_t>(b.count) * sizeof(double));
}

CommBuffer devBuf(DeviceTensor& d) { return CommBuffer{d.data(), d.numel(), d.dtype()}; }

// Runs `call` on a device copy of the host buffer `b` (one in-place buffer),
// then copies the result back into `b`.
template <class Call>
void stagedInPlace(const CommBuffer& b, MemoryBudget* budget, Call&& call) {
  DeviceTensor d = toDevice(b, budget);
  CommBuffer db = devBuf(d);
  call(std::span<CommBuffer>(&db, 1));
  toHost(d, b, budget);
}

// Runs `call` on a device copy of `send` and a device buffer of `recv`'s
// size, then copies that buffer back into `recv`.
template <class Call>
void stagedSendRecv(const CommBuffer& send, const CommBuffer& recv, MemoryBudget* budget, Call&& call) {
  DeviceTensor ds = toDevice(send, budget), dr(recv.dtype, Shape{recv.count}, budget);
  CommBuffer sb = devBuf(ds), rb = devBuf(dr);
  call(std::span<const CommBuffer>(&sb, 1), std::span<CommBuffer>(&rb, 1));
  toHost(dr, recv, budget);
}

}  // namespace

void HostStagedCommunicator::allreduce(std::span<CommBuffer> bufs, ReduceOp op) {
  requireOne(bufs.size());
  stagedInPlace(bufs[0], budget_, [&](std::span<CommBuffer> b) { dev_.allreduce(b, op); });
}

void HostStagedCommunicator::reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv,
                                           ReduceOp op) {
  requireOne(send.size());
  requireOne(recv.size());
  stagedSendRecv(send[0], recv[0], budget_, [&](std::span<const CommBuffer> sb, std::span<CommBuffer> rb) {
    dev_.reduceScatter(sb, rb, op);
  });
}

void HostStagedCommunicator::reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) {
  requireOne(bufs.size());
  stagedInPlace(bufs[0], budget_, [&](std::span<CommBuffer> b) { dev_.reduce(b, root, op); });
}

void HostStagedCommunicator::allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) {
  requireOne(send.size());
  requireOne(recv.size());
  stagedSendRecv(send[0], recv[0], budget_,
                 [&](std::span<const CommBuffer> sb, std::span<CommBuffer> rb) { dev_.allgather(sb, rb); });
}

void HostStagedCommunicator::broadcast(std::span<CommBuffer> bufs, int64_t root) {
  requireOne(bufs.size());
  stagedInPlace(bufs[0], budget_, [&](std::span<CommBuffer> b) { dev_.broadcast(b, root); });
}

void HostStagedCommunicator::gather(std::span<const CommBuffer> send, CommBuffer recv, int64_t root) {
  dev_.gather(send, recv, root);  // unsupported below: throws
}
void HostStagedCommunicator::scatter(CommBuffer send, int64_t root, std::span<CommBuffer> recv) {
  dev_.scatter(send, root, recv);
}
void HostStagedCommunicator::sendRecv(CommBuffer send, int64_t src, CommBuffer recv, int64_t dst) {
  dev_.sendRecv(send, src, recv, dst);
}

// ------------------------------------------------------------ one rank on the GPU

SegmentedRun runRankOnCuda(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                           ScalarValues& sv, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                           std::vector<SegmentRun>* progress, int64_t me,
                           const multirank::TeamCommFactory& make_comm, const multirank::Fault& fault) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  const Fusion& f = *sf.fusion;
  CudaProgram prog(sf, world, sv, budget);
  prog.restrictToRank(me, [&](const Segment& s, SegmentRun& rec) {
    FC_CHECK(!s.exprs.empty(), "communication segment without its expr");
    const Expr& e = f.exprs[s.exprs[0]];
    if (e.inputs.empty() || !e.inputs[0].isTensor() || e.outputs.size() != 1)
      fail("a communication needs one tensor input and one output", Place::expr(s.exprs[0]),
           DiagCode::ExecutionFailed);
    std::optional<HostTensor> x;
    if (const DeviceTensor* d = prog.tensor(e.inputs[0].id, me)) x = d->download(budget);
    auto y =
        multirank::communicateOnRank(f, world, s, me, x ? &*x : nullptr, sv, budget, make_comm, fault, rec);
    if (y) prog.setTensor(e.outputs[0], me, DeviceTensor::upload(*y, budget));
  });
  return prog.runAndCollect(in, stop_at, progress);
}

}  // namespace fc::exec::cuda
#endif  // FC_HAVE_NCCL
