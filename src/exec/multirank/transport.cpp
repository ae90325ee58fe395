// TCP bootstrap and framed links of multi-process runs (see transport.h).
#include "exec/multirank/transport.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "exec/exec_error.h"

namespace fc::exec::multirank {
namespace {

constexpr uint32_t kMagic = 0x4b524346;  // "FCRK"
constexpr uint64_t kMaxFrame = uint64_t(1) << 40;

[[noreturn]] void rankFail(const std::string& msg) { fail(msg, {}, DiagCode::RankFailed); }

std::optional<int64_t> envInt(const char* name, std::string* bad) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v, &end, 10);
  if (errno || end == v || *end || x < 0) {
    *bad = std::string(name) + "='" + v + "' is not a non-negative integer";
    return std::nullopt;
  }
  return x;
}

int remainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1000));
}

// Waits until fd is ready for `events` or the deadline passes.
void waitFd(int fd, short events, Clock::time_point deadline, const std::string& what) {
  for (;;) {
    if (Clock::now() >= deadline) rankFail("timed out " + what + " (--rank-timeout)");
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, remainingMs(deadline));
    if (r > 0) return;
    if (r < 0 && errno != EINTR) rankFail(what + ": poll: " + std::strerror(errno));
  }
}

struct Header {
  uint32_t magic;
  uint32_t tag;
  uint64_t bytes;
};

}  // namespace

Clock::time_point deadlineAfter(double seconds) {
  return Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

std::optional<RankEnv> rankEnvFromEnvironment(std::string* error) {
  std::string bad;
  RankEnv e;
  auto rank = envInt("RANK", &bad), world = envInt("WORLD_SIZE", &bad);
  e.source = std::getenv("FC_RANK_LAUNCHER") ? "fusecheck" : "torchrun";
  if (!rank && !world && bad.empty()) {
    rank = envInt("OMPI_COMM_WORLD_RANK", &bad);
    world = envInt("OMPI_COMM_WORLD_SIZE", &bad);
    e.source = "mpirun";
    if (auto l = envInt("OMPI_COMM_WORLD_LOCAL_RANK", &bad)) e.local_rank = *l;
  } else if (auto l = envInt("LOCAL_RANK", &bad)) {
    e.local_rank = *l;
  } else {
    e.local_rank = rank.value_or(0);
  }
  if (!rank && !world && bad.empty()) return std::nullopt;
  if (e.source == "mpirun" && !std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) e.local_rank = rank.value_or(0);
  const char* addr = std::getenv("MASTER_ADDR");
  auto port = envInt("MASTER_PORT", &bad);
  if (bad.empty() && (!rank || !world))
    bad =
        "the rank environment is partial: set both RANK and WORLD_SIZE (or OMPI_COMM_WORLD_RANK and "
        "OMPI_COMM_WORLD_SIZE)";
  if (bad.empty() && (*world < 1 || *rank >= *world))
    bad = "rank " + std::to_string(*rank) + " is outside a world of " + std::to_string(*world);
  if (bad.empty() && *world > 1 && (!addr || !*addr || !port || *port == 0 || *port > 65535))
    bad = "a multi-process run needs MASTER_ADDR and MASTER_PORT (1..65535) for its TCP bootstrap";
  if (!bad.empty()) {
    *error = bad;
    return std::nullopt;
  }
  e.rank = *rank;
  e.world = *world;
  e.master_addr = addr ? addr : "127.0.0.1";
  e.master_port = static_cast<int>(port.value_or(0));
  if (auto fd = envInt("FC_MASTER_FD", &bad); fd && e.rank == 0) e.listen_fd = static_cast<int>(*fd);
  return e;
}

Link::Link(Link&& o) noexcept : fd_(o.fd_), peer_(o.peer_) { o.fd_ = -1; }
Link& Link::operator=(Link&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    peer_ = o.peer_;
    o.fd_ = -1;
  }
  return *this;
}
Link::~Link() { close(); }
void Link::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Link::sendAll(const void* p, uint64_t n, Clock::time_point deadline) {
  const char* c = static_cast<const char*>(p);
  std::string what = "sending to rank " + std::to_string(peer_);
  while (n > 0) {
    waitFd(fd_, POLLOUT, deadline, what);
    ssize_t w = ::send(fd_, c, std::min<uint64_t>(n, uint64_t(1) << 26), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      rankFail("rank " + std::to_string(peer_) + " is gone (" + std::strerror(errno) + ")");
    }
    c += w;
    n -= static_cast<uint64_t>(w);
  }
}

void Link::recvAll(void* p, uint64_t n, Clock::time_point deadline) {
  char* c = static_cast<char*>(p);
  std::string what = "waiting for rank " + std::to_string(peer_);
  while (n > 0) {
    waitFd(fd_, POLLIN, deadline, what);
    ssize_t r = ::recv(fd_, c, std::min<uint64_t>(n, uint64_t(1) << 26), MSG_DONTWAIT);
    if (r == 0) rankFail("rank " + std::to_string(peer_) + " closed its connection (it exited or died)");
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      rankFail("rank " + std::to_string(peer_) + " is gone (" + std::strerror(errno) + ")");
    }
    c += r;
    n -= static_cast<uint64_t>(r);
  }
}

void Link::send(Tag tag, const void* data, uint64_t bytes, Clock::time_point deadline) {
  if (fd_ < 0) rankFail("no connection to rank " + std::to_string(peer_));
  Header h{kMagic, static_cast<uint32_t>(tag), bytes};
  sendAll(&h, sizeof h, deadline);
  if (bytes) sendAll(data, bytes, deadline);
}

std::string Link::recv(Tag want, Clock::time_point deadline) {
  if (fd_ < 0) rankFail("no connection to rank " + std::to_string(peer_));
  Header h{};
  recvAll(&h, sizeof h, deadline);
  if (h.magic != kMagic || h.bytes > kMaxFrame)
    rankFail("rank " + std::to_string(peer_) + " sent a malformed message");
  std::string s(h.bytes, '\0');
  if (h.bytes) recvAll(s.data(), h.bytes, deadline);
  if (static_cast<Tag>(h.tag) == Tag::Error) rankFail("rank " + std::to_string(peer_) + " failed: " + s);
  if (static_cast<Tag>(h.tag) != want)
    rankFail("rank " + std::to_string(peer_) + " is out of step (message " + std::to_string(h.tag) +
             ", expected " + std::to_string(static_cast<uint32_t>(want)) + ")");
  return s;
}

int listenLoopback(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) rankFail(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 256) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    rankFail("cannot listen on 127.0.0.1: " + why);
  }
  *port = ntohs(a.sin_port);
  return fd;
}

namespace {

int listenOn(const RankEnv& env) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) rankFail(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);  // MASTER_ADDR names this host; listen on all its addresses
  a.sin_port = htons(static_cast<uint16_t>(env.master_port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 256) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    rankFail("rank 0 cannot listen on port " + std::to_string(env.master_port) + ": " + why);
  }
  return fd;
}

int connectTo(const RankEnv& env, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  std::string port = std::to_string(env.master_port);
  std::string last = "no attempt";
  while (Clock::now() < deadline) {
    addrinfo* res = nullptr;
    int g = ::getaddrinfo(env.master_addr.c_str(), port.c_str(), &hints, &res);
    if (g != 0) {
      last = std::string("cannot resolve MASTER_ADDR '") + env.master_addr + "': " + gai_strerror(g);
    } else {
      for (addrinfo* p = res; p; p = p->ai_next) {
        int fd = ::socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, p->ai_addr, p->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          return fd;
        }
        last = std::strerror(errno);
        ::close(fd);
      }
      ::freeaddrinfo(res);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // rank 0 may not listen yet
  }
  rankFail("rank " + std::to_string(env.rank) + " could not reach rank 0 at " + env.master_addr + ":" + port +
           " (" + last + ")");
}

struct Hello {
  int64_t rank;
  int64_t world;
};

}  // namespace

Links bootstrap(const RankEnv& env, const std::string& blob, double timeout_s) {
  Links l;
  l.rank = env.rank;
  l.world = env.world;
  l.links.resize(env.rank == 0 ? env.world : 1);
  auto deadline = deadlineAfter(timeout_s);
  if (env.world == 1) {
    l.blob = blob;
    return l;
  }
  if (env.rank != 0) {
    l.links[0] = Link(connectTo(env, deadline), 0);
    Hello h{env.rank, env.world};
    l.links[0].send(Tag::Hello, &h, sizeof h, deadline);
    l.blob = l.links[0].recv(Tag::Blob, deadline);
    return l;
  }
  int lfd = env.listen_fd >= 0 ? env.listen_fd : listenOn(env);
  int64_t joined = 0;
  try {
    while (joined < env.world - 1) {
      waitFd(lfd, POLLIN, deadline,
             "waiting for ranks to join (" + std::to_string(joined) + " of " + std::to_string(env.world - 1) +
                 " joined)");
      int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      Link in(fd, -1);
      std::string s = in.recv(Tag::Hello, deadline);
      Hello h{};
      if (s.size() != sizeof h) rankFail("a peer sent a malformed hello");
      std::memcpy(&h, s.data(), sizeof h);
      if (h.world != env.world)
        fail("rank " + std::to_string(h.rank) + " runs in a world of " + std::to_string(h.world) +
                 " ranks, rank 0 in one of " + std::to_string(env.world),
             {}, DiagCode::RanksMismatch);
      if (h.rank <= 0 || h.rank >= env.world || l.links[h.rank].open())
        rankFail("two processes claim rank " + std::to_string(h.rank));
      in.setPeer(h.rank);
      l.links[h.rank] = std::move(in);
      ++joined;
    }
  } catch (...) {
    ::close(lfd);
    throw;
  }
  ::close(lfd);
  l.blob = blob;
  for (int64_t r = 1; r < env.world; ++r) l.links[r].send(Tag::Blob, blob, deadline);
  return l;
}

}  // namespace fc::exec::multirank
