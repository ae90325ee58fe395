// The TCP side of multi-process runs (`run --ranks N`, docs/multigpu.md):
// where this process stands in the job (RankEnv, from the torchrun or
// mpirun environment), framed messages over TCP with deadlines (Link), and
// the bootstrap: rank 0 listens on MASTER_ADDR:MASTER_PORT, every other
// rank connects and says hello, rank 0 answers each with the job's shared
// blob (the ncclUniqueId for --device cuda). The links stay open for the
// host collectives (--device cpu) and for gathering results to rank 0.
// Every wait has a deadline; a closed connection, a timeout or a peer's
// error frame is an ExecError with code RankFailed (FC0907). No MPI.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fc::exec::multirank {

struct RankEnv {
  int64_t rank = 0;
  int64_t world = 1;
  int64_t local_rank = 0;  // LOCAL_RANK / OMPI_COMM_WORLD_LOCAL_RANK, else rank
  std::string master_addr;
  int master_port = 0;
  int listen_fd = -1;  // FC_MASTER_FD: a listening socket the local launcher made for rank 0
  std::string source;  // "torchrun", "mpirun", "fusecheck"
};

// RANK + WORLD_SIZE (torchrun; fusecheck's own launcher sets these too) or
// OMPI_COMM_WORLD_RANK + OMPI_COMM_WORLD_SIZE, with MASTER_ADDR /
// MASTER_PORT; nullopt when no rank variables are set. A partial or
// malformed environment is described in `*error`.
std::optional<RankEnv> rankEnvFromEnvironment(std::string* error);

using Clock = std::chrono::steady_clock;

enum class Tag : uint32_t { Hello = 1, Blob = 2, Data = 3, Error = 4, Outputs = 5 };

// One framed TCP connection. Frames: magic, tag, length, payload.
class Link {
 public:
  Link() = default;
  explicit Link(int fd, int64_t peer) : fd_(fd), peer_(peer) {}
  Link(Link&& o) noexcept;
  Link& operator=(Link&& o) noexcept;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  ~Link();
  bool open() const { return fd_ >= 0; }
  int64_t peer() const { return peer_; }
  void setPeer(int64_t p) { peer_ = p; }
  void close();

  void send(Tag tag, const void* data, uint64_t bytes, Clock::time_point deadline);
  void send(Tag tag, const std::string& s, Clock::time_point deadline) {
    send(tag, s.data(), s.size(), deadline);
  }
  // Receives one frame. An Error frame is thrown as ExecError (RankFailed)
  // with the peer's message; so is a tag other than `want`.
  std::string recv(Tag want, Clock::time_point deadline);

 private:
  void sendAll(const void* p, uint64_t n, Clock::time_point deadline);
  void recvAll(void* p, uint64_t n, Clock::time_point deadline);
  int fd_ = -1;
  int64_t peer_ = -1;
};

// This rank's connections: rank 0 holds one link per other rank (index =
// peer rank, its own slot closed); every other rank holds links[0] only.
struct Links {
  int64_t rank = 0;
  int64_t world = 1;
  std::vector<Link> links;
  std::string blob;  // the job's shared bytes, from rank 0
};

// Rank 0: `blob` is what it shares (made before the bootstrap); the others
// ignore it and receive rank 0's. Throws ExecError (RankFailed) on a
// timeout, a refused connection past the deadline, or a bad hello.
Links bootstrap(const RankEnv& env, const std::string& blob, double timeout_s);

// A listening TCP socket on 127.0.0.1 with a free port (for the local
// launcher); returns the fd and sets *port. Throws ExecError.
int listenLoopback(int* port);

Clock::time_point deadlineAfter(double seconds);

}  // namespace fc::exec::multirank
