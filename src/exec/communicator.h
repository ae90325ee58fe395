// Collectives over the ranks of one communicator, the ones nvFuser's
// communications lower to: Allreduce, ReduceScatter, Reduce, Allgather, Gather, Scatter,
// Broadcast, SendRecv. One call drives every rank this process owns, with
// one buffer per rank in rank order — the shape of NCCL's grouped calls
// (ncclGroupStart / one call per local GPU / ncclGroupEnd), so an NCCL
// implementation for N GPUs in one process fits the same interface.
//
// Buffers hold `count` elements of `dtype` in the communicator's storage
// format: SimulatedCommunicator uses host fp64 values (exec/host_tensor.h);
// a device communicator would use device memory in the native dtype.
//
// The simulated model (docs/numerics.md): NCCL's ring. The buffer is cut
// into `size()` contiguous chunks (chunk c = [c*n/R, (c+1)*n/R)); chunk c is
// reduced along the ring starting at rank (c+1) mod R, each hop adding the
// next rank's value and rounding the partial result to the buffer dtype,
// ending at rank c; Allreduce then hands every rank the same result. Reduce
// to root r sums in ring order starting at rank (r+1) mod R and ends at r,
// rounding per hop. Data movement (gather, scatter, broadcast, send/recv)
// is exact. O(R * n) per call.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ir/types.h"

namespace fc::exec {

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min };

struct CommBuffer {
  void* data = nullptr;
  int64_t count = 0;  // elements
  DType dtype = DType::Float;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::string_view name() const = 0;
  virtual int64_t size() const = 0;  // ranks driven by this communicator

  // In place: every buf[r] ends holding the reduction over all ranks.
  virtual void allreduce(std::span<CommBuffer> bufs, ReduceOp op) = 0;
  // send[r] has size()*recv[r].count elements; recv[r] gets reduced chunk r.
  virtual void reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv, ReduceOp op) = 0;
  // The reduction over all bufs lands in bufs[root]; other buffers are
  // unchanged.
  virtual void reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) = 0;
  // recv[r] (size()*send.count) = concatenation of send[0..R) in rank order.
  virtual void allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) = 0;
  // recv (on root) = concatenation of send[0..R).
  virtual void gather(std::span<const CommBuffer> send, CommBuffer recv, int64_t root) = 0;
  // recv[r] = chunk r of send (on root).
  virtual void scatter(CommBuffer send, int64_t root, std::span<CommBuffer> recv) = 0;
  // Every bufs[r] = bufs[root].
  virtual void broadcast(std::span<CommBuffer> bufs, int64_t root) = 0;
  // recv (on dst) = send (on src).
  virtual void sendRecv(CommBuffer send, int64_t src, CommBuffer recv, int64_t dst) = 0;
};

// The declarations of the eight collectives, for the class body of each
// Communicator implementation (one list, so that an added collective is
// declared everywhere at once).
#define FC_COMMUNICATOR_COLLECTIVES                                                                       \
  void allreduce(std::span<CommBuffer> bufs, ReduceOp op) override;                                       \
  void reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv, ReduceOp op) override; \
  void reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) override;                            \
  void allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) override;                  \
  void gather(std::span<const CommBuffer> send, CommBuffer recv, int64_t root) override;                  \
  void scatter(CommBuffer send, int64_t root, std::span<CommBuffer> recv) override;                       \
  void broadcast(std::span<CommBuffer> bufs, int64_t root) override;                                      \
  void sendRecv(CommBuffer send, int64_t src, CommBuffer recv, int64_t dst) override;

// All ranks in this process on the host (see the header comment).
class SimulatedCommunicator final : public Communicator {
 public:
  explicit SimulatedCommunicator(int64_t size) : size_(size) {}
  std::string_view name() const override { return "simulated-ring"; }
  int64_t size() const override { return size_; }
  FC_COMMUNICATOR_COLLECTIVES

 private:
  int64_t size_;
};

}  // namespace fc::exec
