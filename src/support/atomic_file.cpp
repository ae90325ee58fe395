#include "support/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fc {
namespace {
bool g_inject_failure = false;
}

void setAtomicWriteFailureInjection(bool fail) { g_inject_failure = fail; }

std::string writeFileAtomic(const std::string& path, std::string_view content) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + tmp + ": " + std::strerror(errno);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return "cannot write " + tmp + ": " + err;
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return "cannot flush " + tmp + ": " + err;
  }
  if (g_inject_failure) {
    ::unlink(tmp.c_str());
    return "injected failure before rename";
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return "cannot rename " + tmp + " to " + path + ": " + err;
  }
  return {};
}

}  // namespace fc
