// Multi-process runs without a GPU (docs/multigpu.md): `run --ranks N
// --device cpu` runs each rank in its own process with the host
// collectives over TCP; the launcher, the torchrun-style bootstrap, result
// gathering and the failure handling (die / hang / communicator error) are
// the ones --device cuda uses. Results must be identical to the one-process
// simulation (the hub applies the same simulated ring).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_status.h"
#endif

namespace fc::test {
namespace {

const std::string kSeed = "fixtures/seed/matmul_allreduce_bias.json";

nlohmann::json parse(const Finished& f) {
  try {
    return nlohmann::json::parse(f.out);
  } catch (...) {
    ADD_FAILURE() << "not JSON:\n" << f.out << "\nstderr:\n" << f.err;
    return {};
  }
}

// Runs FILE simulated in one process and with --ranks 2, both JSON; the
// verdicts, segments and every output's comparison must agree.
void expectSameAsSimulation(const std::string& file, std::vector<std::string> extra, int want_exit) {
  std::vector<std::string> base{"run", source(file), "--format", "json", "--rank-timeout", "60"};
  base.insert(base.end(), extra.begin(), extra.end());
  std::vector<std::string> sim_args{"run", source(file), "--format", "json"};
  sim_args.insert(sim_args.end(), extra.begin(), extra.end());
  std::vector<std::string> multi = base;
  multi.push_back("--ranks");
  multi.push_back("2");
  Finished s = runCli(sim_args), m = runCli(multi);
  ASSERT_EQ(s.exit_code, want_exit) << s.out << s.err;
  ASSERT_EQ(m.exit_code, want_exit) << m.out << m.err;
  auto js = parse(s), jm = parse(m);
  ASSERT_TRUE(jm.contains("run")) << m.out;
  EXPECT_EQ(js["run"]["outputs"], jm["run"]["outputs"]);
  EXPECT_EQ(js["run"]["passed"], jm["run"]["passed"]);
  EXPECT_EQ(js["run"]["ranks"], jm["run"]["ranks"]);
  ASSERT_EQ(js["run"]["segments"].size(), jm["run"]["segments"].size());
  for (size_t k = 0; k < js["run"]["segments"].size(); ++k)
    EXPECT_EQ(js["run"]["segments"][k]["status"], jm["run"]["segments"][k]["status"]) << k;
  EXPECT_NE(jm["run"]["communicator"].get<std::string>().find("host-tcp, 2 processes"), std::string::npos)
      << jm["run"]["communicator"];
  std::vector<std::string> codes_s, codes_m;
  for (auto& d : js["diagnostics"]) codes_s.push_back(d["code"]);
  for (auto& d : jm["diagnostics"]) codes_m.push_back(d["code"]);
  EXPECT_EQ(codes_s, codes_m);
}

TEST(MultiRank, SeedFixedMatchesSimulation) { expectSameAsSimulation(kSeed, {"--fix"}, 0); }

TEST(MultiRank, SeedUnfixedFailsWhereTheEraFails) { expectSameAsSimulation(kSeed, {}, 1); }

TEST(MultiRank, ReduceScatterMatchesSimulation) {
  expectSameAsSimulation("fixtures/analysis/reduce_scatter_symbolic_ko.json", {"--fix"}, 0);
}

TEST(MultiRank, AllgatherMatchesSimulation) {
  expectSameAsSimulation("fixtures/analysis/control_allgather_edge.json", {}, 0);
}

TEST(MultiRank, ShardedTransformerMatchesSimulation) {
  std::string file = scratch("synth.json");
  Finished g = finish(start({FC_SYNTH_PATH, "--exprs", "200", "--sharded", "-o", file}));
  ASSERT_EQ(g.exit_code, 0) << g.out << g.err;
  std::vector<std::string> sim{"run", file, "--format", "json", "--fix"};
  std::vector<std::string> multi = sim;
  multi.insert(multi.end(), {"--ranks", "2"});
  Finished s = runCli(sim), m = runCli(multi);
  EXPECT_EQ(s.exit_code, m.exit_code) << m.err;
  auto js = parse(s), jm = parse(m);
  EXPECT_EQ(js["run"]["outputs"], jm["run"]["outputs"]);
  std::remove(file.c_str());
}

TEST(MultiRank, TextReportNamesTheProcesses) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2"});
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("over 2 ranks (one process each)"), std::string::npos) << m.out;
}

// --- failures: exit 3, FC0907, every rank's error, no hang

void expectRankFailure(const std::string& fault, double max_seconds) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "4"},
                      {"FC_FAULT_INJECT=" + fault}, 90);
  EXPECT_EQ(m.exit_code, 3) << m.out << m.err;
  EXPECT_LT(m.seconds, max_seconds) << m.err;
  EXPECT_NE((m.out + m.err).find("FC0907"), std::string::npos) << m.out << m.err;
}

TEST(MultiRankFailure, RankDies) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "30"},
                      {"FC_FAULT_INJECT=rank:1:die"}, 90);
  EXPECT_EQ(m.exit_code, 3) << m.out << m.err;
  EXPECT_LT(m.seconds, 25) << "a dead rank is seen at once, not after --rank-timeout\n" << m.err;
  EXPECT_NE(m.err.find("rank 1 was killed by signal 9"), std::string::npos) << m.err;
  EXPECT_NE((m.out + m.err).find("FC0907"), std::string::npos) << m.out << m.err;
}

TEST(MultiRankFailure, RootDies) { expectRankFailure("rank:0:die", 25); }

TEST(MultiRankFailure, RankHangs) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "3"},
                      {"FC_FAULT_INJECT=rank:1:hang"}, 90);
  EXPECT_EQ(m.exit_code, 3) << m.out << m.err;
  EXPECT_LT(m.seconds, 30) << m.err;
  EXPECT_NE((m.out + m.err).find("timed out waiting for rank 1"), std::string::npos) << m.out << m.err;
  EXPECT_NE((m.out + m.err).find("FC0907"), std::string::npos) << m.out << m.err;
}

TEST(MultiRankFailure, CommunicatorError) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "30"},
                      {"FC_FAULT_INJECT=rank:1:nccl-error"}, 90);
  EXPECT_EQ(m.exit_code, 3) << m.out << m.err;
  EXPECT_LT(m.seconds, 25) << m.err;
  EXPECT_NE((m.out + m.err).find("injected communicator error"), std::string::npos) << m.out << m.err;
}

TEST(MultiRankFailure, BadFaultSpecIsUsage) {
  Finished m = runCli({"run", source(kSeed), "--fix", "--ranks", "2"}, {"FC_FAULT_INJECT=rank:x:boom"});
  EXPECT_EQ(m.exit_code, 2) << m.out << m.err;
  EXPECT_NE((m.out + m.err).find("FC_FAULT_INJECT"), std::string::npos) << m.out << m.err;
}

// --- FC0908 ranks-mismatch

TEST(MultiRankUsage, MoreRanksThanMeshDevices) {
  Finished m = runCli({"run", source(kSeed), "--ranks", "3"});
  EXPECT_EQ(m.exit_code, 2) << m.out << m.err;
  EXPECT_NE(m.err.find("FC0908"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("cover 2 devices"), std::string::npos) << m.err;
}

TEST(MultiRankUsage, LauncherWorldDiffers) {
  Finished m = runCli({"run", source(kSeed), "--ranks", "2"},
                      {"RANK=0", "WORLD_SIZE=4", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=29999"});
  EXPECT_EQ(m.exit_code, 2) << m.out << m.err;
  EXPECT_NE(m.err.find("FC0908"), std::string::npos) << m.err;
}

TEST(MultiRankUsage, PartialRankEnvironment) {
  Finished m = runCli({"run", source(kSeed), "--ranks", "2"}, {"RANK=0"});
  EXPECT_EQ(m.exit_code, 2) << m.out << m.err;
  EXPECT_NE(m.err.find("WORLD_SIZE"), std::string::npos) << m.err;
}

TEST(MultiRankUsage, CudaRanksBeyondTheGpus) {
  int gpus = 0;
#if FC_HAVE_CUDA
  gpus = exec::cuda::deviceCount();
#endif
  if (gpus >= 2)
    GTEST_SKIP() << "SKIPPED: this machine has " << gpus << " GPUs (the case needs fewer than 2)";
  Finished m = runCli({"run", source(kSeed), "--ranks", "2", "--device", "cuda"});
  EXPECT_EQ(m.exit_code, 3) << m.out << m.err;
  EXPECT_NE(m.err.find("FC0908"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("one GPU per rank"), std::string::npos) << m.err;
}

// --- external launchers: the torchrun and mpirun conventions

int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

void externalLaunch(const std::string& rank_var, const std::string& size_var) {
  std::string port = std::to_string(freePort());
  std::vector<Proc> procs;
  for (int r = 1; r >= 0; --r)  // rank 1 first: it waits for rank 0's listener
    procs.push_back(start({cliPath(), "run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "30"},
                          {rank_var + "=" + std::to_string(r), size_var + "=2", "MASTER_ADDR=localhost",
                           "MASTER_PORT=" + port}));
  Finished r1 = finish(procs[0], 90), r0 = finish(procs[1], 90);
  EXPECT_EQ(r0.exit_code, 0) << r0.out << r0.err;
  EXPECT_EQ(r1.exit_code, 0) << r1.out << r1.err;
  EXPECT_NE(r0.out.find("over 2 ranks (one process each)"), std::string::npos) << r0.out;
  EXPECT_EQ(r1.out, "") << "only rank 0 reports";
}

TEST(MultiRankExternal, TorchrunEnvironment) { externalLaunch("RANK", "WORLD_SIZE"); }
TEST(MultiRankExternal, MpirunEnvironment) { externalLaunch("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"); }

TEST(MultiRankExternal, MissingPeerTimesOut) {
  std::string port = std::to_string(freePort());
  Finished r0 =
      finish(start({cliPath(), "run", source(kSeed), "--fix", "--ranks", "2", "--rank-timeout", "2"},
                   {"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port}),
             60);
  EXPECT_EQ(r0.exit_code, 3) << r0.out << r0.err;
  EXPECT_NE((r0.out + r0.err).find("FC0907"), std::string::npos) << r0.out << r0.err;
  EXPECT_NE((r0.out + r0.err).find("waiting for ranks to join"), std::string::npos) << r0.out;
}

}  // namespace
}  // namespace fc::test
