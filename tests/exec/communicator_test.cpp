// The simulated ring: order and precision of reductions, data movement.
#include "exec/communicator.h"

#include <gtest/gtest.h>

#include <vector>

namespace fc::exec {
namespace {

std::vector<CommBuffer> bufs(std::vector<std::vector<double>>& data, DType dt) {
  std::vector<CommBuffer> b;
  for (auto& d : data) b.push_back({d.data(), static_cast<int64_t>(d.size()), dt});
  return b;
}

TEST(Communicator, AllreduceFollowsTheRingOrderInTheBufferDType) {
  // Three ranks, three elements (one chunk each). In Half the spacing at
  // 2048 is 2, so the order of additions shows:
  //   chunk 0 starts at rank 1: (1 + 1) + 2048 = 2050
  //   chunk 1 starts at rank 2: (1 + 2048) -> 2048, + 1 -> 2048
  //   chunk 2 starts at rank 0: (2048 + 1) -> 2048, + 1 -> 2048
  std::vector<std::vector<double>> d = {{2048, 2048, 2048}, {1, 1, 1}, {1, 1, 1}};
  auto b = bufs(d, DType::Half);
  SimulatedCommunicator c(3);
  c.allreduce(b, ReduceOp::Sum);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(d[r], (std::vector<double>{2050, 2048, 2048})) << "rank " << r;
  // In Float every order is exact.
  std::vector<std::vector<double>> e = {{2048, 2048, 2048}, {1, 1, 1}, {1, 1, 1}};
  auto bf = bufs(e, DType::Float);
  c.allreduce(bf, ReduceOp::Sum);
  EXPECT_EQ(e[0], (std::vector<double>{2050, 2050, 2050}));
}

TEST(Communicator, AllreduceMaxMinProd) {
  std::vector<std::vector<double>> d = {{1, -5}, {3, 2}};
  auto b = bufs(d, DType::Float);
  SimulatedCommunicator c(2);
  c.allreduce(b, ReduceOp::Max);
  EXPECT_EQ(d[1], (std::vector<double>{3, 2}));
  std::vector<std::vector<double>> p = {{2, -5}, {3, 2}};
  auto bp = bufs(p, DType::Float);
  c.allreduce(bp, ReduceOp::Prod);
  EXPECT_EQ(p[0], (std::vector<double>{6, -10}));
  std::vector<std::vector<double>> m = {{2, -5}, {3, 2}};
  auto bm = bufs(m, DType::Float);
  c.allreduce(bm, ReduceOp::Min);
  EXPECT_EQ(m[0], (std::vector<double>{2, -5}));
}

TEST(Communicator, ReduceScatterGivesEachRankItsReducedChunk) {
  std::vector<std::vector<double>> s = {{1, 2, 3, 4}, {10, 20, 30, 40}};
  std::vector<std::vector<double>> r = {{0, 0}, {0, 0}};
  auto sb = bufs(s, DType::Float);
  auto rb = bufs(r, DType::Float);
  SimulatedCommunicator c(2);
  c.reduceScatter(std::vector<CommBuffer>(sb.begin(), sb.end()), rb, ReduceOp::Sum);
  EXPECT_EQ(r[0], (std::vector<double>{11, 22}));
  EXPECT_EQ(r[1], (std::vector<double>{33, 44}));
}

TEST(Communicator, ReduceLandsOnRootOnly) {
  std::vector<std::vector<double>> d = {{1}, {2}, {4}};
  auto b = bufs(d, DType::Float);
  SimulatedCommunicator c(3);
  c.reduce(b, 1, ReduceOp::Sum);
  EXPECT_EQ(d[1][0], 7);
  EXPECT_EQ(d[0][0], 1);
  EXPECT_EQ(d[2][0], 4);
}

TEST(Communicator, DataMovement) {
  SimulatedCommunicator c(2);
  std::vector<std::vector<double>> s = {{1, 2}, {3, 4}};
  std::vector<std::vector<double>> r = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  auto sb = bufs(s, DType::Float);
  auto rb = bufs(r, DType::Float);
  c.allgather(std::vector<CommBuffer>(sb.begin(), sb.end()), rb);
  EXPECT_EQ(r[0], (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(r[1], r[0]);

  std::vector<double> g(4, 0);
  c.gather(std::vector<CommBuffer>(sb.begin(), sb.end()), CommBuffer{g.data(), 4, DType::Float}, 1);
  EXPECT_EQ(g, (std::vector<double>{1, 2, 3, 4}));

  std::vector<double> src = {5, 6, 7, 8};
  std::vector<std::vector<double>> sc = {{0, 0}, {0, 0}};
  auto scb = bufs(sc, DType::Float);
  c.scatter(CommBuffer{src.data(), 4, DType::Float}, 0, scb);
  EXPECT_EQ(sc[0], (std::vector<double>{5, 6}));
  EXPECT_EQ(sc[1], (std::vector<double>{7, 8}));

  std::vector<std::vector<double>> bc = {{0, 0}, {9, 8}};
  auto bcb = bufs(bc, DType::Float);
  c.broadcast(bcb, 1);
  EXPECT_EQ(bc[0], (std::vector<double>{9, 8}));

  std::vector<double> a = {3, 1}, z = {0, 0};
  c.sendRecv(CommBuffer{a.data(), 2, DType::Float}, 0, CommBuffer{z.data(), 2, DType::Float}, 1);
  EXPECT_EQ(z, a);
}

}  // namespace
}  // namespace fc::exec
