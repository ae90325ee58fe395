// NCCL collectives, one rank per GPU (see nccl_communicator.h).
#if FC_HAVE_NCCL
#include "exec/cuda/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdlib>
#include <string>

#include "exec/cuda/cuda_status.h"
#include "exec/exec_error.h"

namespace fc::exec::cuda {

int ncclDataTypeOf(DType t) {
  switch (t) {
    case DType::Half: return ncclFloat16;
    case DType::BFloat16: return ncclBfloat16;
    case DType::Float: return ncclFloat32;
    case DType::Double: return ncclFloat64;
    case DType::Int32: return ncclInt32;
    case DType::Int:
    case DType::Index: return ncclInt64;
    case DType::Bool:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2:
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn: return ncclUint8;  // data movement only
    case DType::ComplexFloat:
    case DType::ComplexDouble: break;  // never run: `run` refuses complex tensors (FC0909)
  }
  return ncclFloat32;
}

int ncclRedOpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Prod: return ncclProd;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Min: return ncclMin;
  }
  return ncclSum;
}

void requireNcclReducible(DType t) {
  if (t == DType::Bool || t == DType::Float8_e4m3fn || t == DType::Float8_e5m2)
    fail(std::string("NCCL cannot reduce ") + std::string(dtypeName(t)) + " buffers", {},
         DiagCode::CudaError);
}

namespace {
ncclDataType_t ncclType(DType t) { return static_cast<ncclDataType_t>(ncclDataTypeOf(t)); }
ncclRedOp_t ncclOp(ReduceOp op) { return static_cast<ncclRedOp_t>(ncclRedOpOf(op)); }
void checkReducible(DType t) { requireNcclReducible(t); }
size_t bytesOf(const CommBuffer& b) { return static_cast<size_t>(b.count) * dtypeBytes(b.dtype); }
}  // namespace

NcclCommunicator::NcclCommunicator(std::vector<int> devices) : devices_(std::move(devices)) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // never NVLink multicast (KINDS.md)
  int n = deviceCount();
  if (devices_.empty() || static_cast<int>(devices_.size()) > n)
    fail("NCCL needs one GPU per rank: " + std::to_string(devices_.size()) + " ranks, " + std::to_string(n) +
             " GPUs",
         {}, DiagCode::NoDevice);
  std::vector<ncclComm_t> comms(devices_.size());
  FC_NCCL(ncclCommInitAll(comms.data(), static_cast<int>(devices_.size()), devices_.data()));
  for (auto c : comms) comms_.push_back(c);
  for (int d : devices_) {
    FC_CUDA(cudaSetDevice(d));
    cudaStream_t s = nullptr;
    FC_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams_.push_back(s);
  }
}

NcclCommunicator::~NcclCommunicator() {
  for (size_t r = 0; r < comms_.size(); ++r) ncclCommDestroy(static_cast<ncclComm_t>(comms_[r]));
  for (size_t r = 0; r < streams_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaStreamDestroy(static_cast<cudaStream_t>(streams_[r]));
  }
}

#define FC_RANKS(body)                                      \
  do {                                                      \
    FC_NCCL(ncclGroupStart());                              \
    for (size_t r = 0; r < devices_.size(); ++r) {          \
      auto comm = static_cast<ncclComm_t>(comms_[r]);       \
      auto stream = static_cast<cudaStream_t>(streams_[r]); \
      (void)comm;                                           \
      (void)stream;                                         \
      body;                                                 \
    }                                                       \
    FC_NCCL(ncclGroupEnd());                                \
    sync();                                                 \
  } while (0)

void NcclCommunicator::sync() {
  for (size_t r = 0; r < devices_.size(); ++r) {
    FC_CUDA(cudaSetDevice(devices_[r]));
    FC_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(streams_[r])));
  }
}

void NcclCommunicator::allreduce(std::span<CommBuffer> bufs, ReduceOp op) {
  checkReducible(bufs[0].dtype);
  FC_RANKS(FC_NCCL(ncclAllReduce(bufs[r].data, bufs[r].data, bufs[r].count, ncclType(bufs[r].dtype),
                                 ncclOp(op), comm, stream)));
}

void NcclCommunicator::reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv,
                                     ReduceOp op) {
  checkReducible(send[0].dtype);
  FC_RANKS(FC_NCCL(ncclReduceScatter(send[r].data, recv[r].data, recv[r].count, ncclType(recv[r].dtype),
                                     ncclOp(op), comm, stream)));
}

void NcclCommunicator::reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) {
  checkReducible(bufs[0].dtype);
  FC_RANKS(FC_NCCL(ncclReduce(bufs[r].data, bufs[r].data, bufs[r].count, ncclType(bufs[r].dtype), ncclOp(op),
                              static_cast<int>(root), comm, stream)));
}

void NcclCommunicator::allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) {
  FC_RANKS(FC_NCCL(
      ncclAllGather(send[r].data, recv[r].data, send[r].count, ncclType(send[r].dtype), comm, stream)));
}

void NcclCommunicator::gather(std::span<const CommBuffer> send, CommBuffer recv, int64_t root) {
  size_t chunk = bytesOf(send[0]);
  FC_RANKS({
    FC_NCCL(ncclSend(send[r].data, chunk, ncclUint8, static_cast<int>(root), comm, stream));
    if (static_cast<int64_t>(r) == root)
      for (size_t q = 0; q < devices_.size(); ++q)
        FC_NCCL(ncclRecv(static_cast<char*>(recv.data) + q * chunk, chunk, ncclUint8, static_cast<int>(q),
                         comm, stream));
  });
}

void NcclCommunicator::scatter(CommBuffer send, int64_t root, std::span<CommBuffer> recv) {
  size_t chunk = bytesOf(recv[0]);
  FC_RANKS({
    if (static_cast<int64_t>(r) == root)
      for (size_t q = 0; q < devices_.size(); ++q)
        FC_NCCL(ncclSend(static_cast<const char*>(send.data) + q * chunk, chunk, ncclUint8,
                         static_cast<int>(q), comm, stream));
    FC_NCCL(ncclRecv(recv[r].data, chunk, ncclUint8, static_cast<int>(root), comm, stream));
  });
}

void NcclCommunicator::broadcast(std::span<CommBuffer> bufs, int64_t root) {
  FC_RANKS(FC_NCCL(ncclBroadcast(bufs[r].data, bufs[r].data, bytesOf(bufs[r]), ncclUint8,
                                 static_cast<int>(root), comm, stream)));
}

void NcclCommunicator::sendRecv(CommBuffer send, int64_t src, CommBuffer recv, int64_t dst) {
  FC_RANKS({
    if (static_cast<int64_t>(r) == src)
      FC_NCCL(ncclSend(send.data, bytesOf(send), ncclUint8, static_cast<int>(dst), comm, stream));
    if (static_cast<int64_t>(r) == dst)
      FC_NCCL(ncclRecv(recv.data, bytesOf(recv), ncclUint8, static_cast<int>(src), comm, stream));
  });
}

}  // namespace fc::exec::cuda
#endif  // FC_HAVE_NCCL
