#include "support/text_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fc {

namespace {
// Below this a plain heap block is as good: huge pages need 2 MiB.
constexpr size_t kMapThreshold = size_t{4} << 20;
}  // namespace

void TextBuffer::Release::operator()(char* p) const {
  if (mapped_bytes > 0) {
    munmap(p, mapped_bytes);
  } else {
    delete[] p;
  }
}

TextBuffer TextBuffer::allocate(size_t size) {
  TextBuffer b;
  size_t bytes = size + kPadding;
  char* p = nullptr;
  size_t mapped = 0;
  if (bytes >= kMapThreshold) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
      madvise(m, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
      p = static_cast<char*>(m);
      mapped = bytes;  // anonymous pages are zero: the padding is too
    }
  }
  if (p == nullptr) {
    p = new char[bytes];
    std::memset(p + size, 0, kPadding);
  }
  b.data_ = std::unique_ptr<char, Release>(p, Release{mapped});
  b.size_ = size;
  return b;
}

// A large file is mapped, not read: no copy and no freshly zeroed pages
// for a 350 MB repro (the copy's page clearing was ~9% of `check` on the
// development machine; a few percent on the device host). The
// mapping is read-only and private; the page after the file's last one is
// an anonymous zero page whenever the padding would reach past the last
// page, so the kPadding bytes after the text always read as zero. nullopt
// when mapping fails: the caller falls back to read().
std::optional<TextBuffer> TextBuffer::mapFile(int fd, size_t size) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t file_pages = (size + page - 1) / page * page;
  const size_t total = (size + kPadding + page - 1) / page * page;
  // Reserve the whole range as zero pages, then put the file over its start.
  void* region = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return std::nullopt;
  int flags = MAP_PRIVATE | MAP_FIXED;
#ifdef MAP_POPULATE
  flags |= MAP_POPULATE;  // fault the file in now, in one call, not page by page
#endif
  void* m = mmap(region, file_pages, PROT_READ, flags, fd, 0);
  if (m == MAP_FAILED) {
    munmap(region, total);
    return std::nullopt;
  }
  TextBuffer b;
  b.data_ = std::unique_ptr<char, Release>(static_cast<char*>(region), Release{total});
  b.size_ = size;
  b.maps_file_ = true;
  return b;
}

TextBuffer::TextBuffer(std::string_view text) {
  *this = allocate(text.size());
  if (!text.empty()) std::memcpy(data_.get(), text.data(), text.size());
}

std::optional<TextBuffer> TextBuffer::readFile(const std::string& path, std::string& why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    why = std::strerror(errno);
    close(fd);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
    close(fd);
    return std::nullopt;
  }
  auto size = static_cast<size_t>(st.st_size);
  if (size >= kMapThreshold) {
    if (auto m = mapFile(fd, size)) {
      close(fd);
      return m;
    }
  }
  TextBuffer b = allocate(size);
  size_t got = 0;
  errno = 0;
  while (got < size) {
    ssize_t n = read(fd, b.data_.get() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  int err = errno;
  close(fd);
  if (got != size) {
    why = err != 0 ? std::string("short read: ") + std::strerror(err) : "short read";
    return std::nullopt;
  }
  return b;
}

}  // namespace fc
