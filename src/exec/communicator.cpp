// The simulated ring communicator (see communicator.h).
#include "exec/communicator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "exec/dtype_convert.h"
#include "support/internal_error.h"

namespace fc::exec {
namespace {

double* D(const CommBuffer& b) { return static_cast<double*>(b.data); }

double combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::Sum: return a + b;
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Max:
      return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b);
    case ReduceOp::Min:
      return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, b);
  }
  return a;
}

// Ring reduction of element i over ranks, starting after `last` and ending
// at it, rounding each partial to `dtype`.
double ringReduce(std::span<const CommBuffer> bufs, int64_t i, int64_t last, ReduceOp op, DType dtype) {
  int64_t R = static_cast<int64_t>(bufs.size());
  int64_t first = (last + 1) % R;
  double acc = D(bufs[first])[i];
  for (int64_t k = 1; k < R; ++k) {
    int64_t r = (first + k) % R;
    acc = roundTo(dtype, combine(op, acc, D(bufs[r])[i]));
  }
  return acc;
}

void checkRanks(int64_t n, int64_t size, const char* what) {
  FC_CHECK(n == size, std::string(what) + ": one buffer per rank is required");
}

}  // namespace

void SimulatedCommunicator::allreduce(std::span<CommBuffer> bufs, ReduceOp op) {
  checkRanks(static_cast<int64_t>(bufs.size()), size_, "allreduce");
  int64_t n = bufs[0].count, R = size_;
  for (const CommBuffer& b : bufs) FC_CHECK(b.count == n, "allreduce: buffer sizes differ");
  std::vector<double> result(n);
  std::span<const CommBuffer> cb(bufs.data(), bufs.size());
  for (int64_t c = 0; c < R; ++c) {
    int64_t lo = c * n / R, hi = (c + 1) * n / R;
    for (int64_t i = lo; i < hi; ++i) result[i] = ringReduce(cb, i, c, op, bufs[0].dtype);
  }
  for (CommBuffer& b : bufs) std::copy(result.begin(), result.end(), D(b));
}

void SimulatedCommunicator::reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv,
                                          ReduceOp op) {
  checkRanks(static_cast<int64_t>(send.size()), size_, "reduceScatter");
  checkRanks(static_cast<int64_t>(recv.size()), size_, "reduceScatter");
  int64_t m = recv[0].count;
  for (int64_t c = 0; c < size_; ++c) {
    FC_CHECK(send[c].count == m * size_ && recv[c].count == m, "reduceScatter: buffer sizes");
    for (int64_t i = 0; i < m; ++i) D(recv[c])[i] = ringReduce(send, c * m + i, c, op, recv[c].dtype);
  }
}

void SimulatedCommunicator::reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) {
  checkRanks(static_cast<int64_t>(bufs.size()), size_, "reduce");
  FC_CHECK(root >= 0 && root < size_, "reduce: root out of range");
  int64_t n = bufs[0].count;
  std::vector<double> result(n);
  std::span<const CommBuffer> cb(bufs.data(), bufs.size());
  for (int64_t i = 0; i < n; ++i) result[i] = ringReduce(cb, i, root, op, bufs[root].dtype);
  std::copy(result.begin(), result.end(), D(bufs[root]));
}

void SimulatedCommunicator::allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) {
  checkRanks(static_cast<int64_t>(send.size()), size_, "allgather");
  checkRanks(static_cast<int64_t>(recv.size()), size_, "allgather");
  int64_t m = send[0].count;
  for (CommBuffer& rb : recv) {
    FC_CHECK(rb.count == m * size_, "allgather: buffer sizes");
    for (int64_t r = 0; r < size_; ++r) std::copy(D(send[r]), D(send[r]) + m, D(rb) + r * m);
  }
}

void SimulatedCommunicator::gather(std::span<const CommBuffer> send, CommBuffer recv, int64_t root) {
  checkRanks(static_cast<int64_t>(send.size()), size_, "gather");
  FC_CHECK(root >= 0 && root < size_, "gather: root out of range");
  int64_t m = send[0].count;
  FC_CHECK(recv.count == m * size_, "gather: buffer sizes");
  for (int64_t r = 0; r < size_; ++r) std::copy(D(send[r]), D(send[r]) + m, D(recv) + r * m);
}

void SimulatedCommunicator::scatter(CommBuffer send, int64_t root, std::span<CommBuffer> recv) {
  checkRanks(static_cast<int64_t>(recv.size()), size_, "scatter");
  FC_CHECK(root >= 0 && root < size_, "scatter: root out of range");
  int64_t m = recv[0].count;
  FC_CHECK(send.count == m * size_, "scatter: buffer sizes");
  for (int64_t r = 0; r < size_; ++r) std::copy(D(send) + r * m, D(send) + (r + 1) * m, D(recv[r]));
}

void SimulatedCommunicator::broadcast(std::span<CommBuffer> bufs, int64_t root) {
  checkRanks(static_cast<int64_t>(bufs.size()), size_, "broadcast");
  FC_CHECK(root >= 0 && root < size_, "broadcast: root out of range");
  for (int64_t r = 0; r < size_; ++r)
    if (r != root) std::copy(D(bufs[root]), D(bufs[root]) + bufs[root].count, D(bufs[r]));
}

void SimulatedCommunicator::sendRecv(CommBuffer send, int64_t src, CommBuffer recv, int64_t dst) {
  FC_CHECK(src >= 0 && src < size_ && dst >= 0 && dst < size_, "sendRecv: rank out of range");
  FC_CHECK(send.count == recv.count, "sendRecv: buffer sizes");
  std::copy(D(send), D(send) + send.count, D(recv));
}

}  // namespace fc::exec
