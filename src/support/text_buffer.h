// An owned block of input text followed by kPadding zero bytes, so that a
// SIMD parser (simdjson reads up to 64 bytes past the end) can use it in
// place: reading a repro costs one copy from the page cache and nothing more.
//
// Files of 4 MiB and more are mapped read-only instead of read (as clang's
// MemoryBuffer does): no copy and no fresh zeroed memory for a 350 MB repro.
// Like any mapped input, a file truncated by another process while fusecheck
// reads it ends the process (SIGBUS); repros are not edited in place while
// being checked. Copied text of that size goes into an anonymous mapping
// advised for transparent huge pages.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fc {

class TextBuffer {
 public:
  static constexpr size_t kPadding = 64;

  TextBuffer() = default;
  // Copies `text`.
  explicit TextBuffer(std::string_view text);

  // Reads the whole file. On failure returns nullopt and sets `why` to a
  // sentence fragment ("No such file or directory", "short read").
  static std::optional<TextBuffer> readFile(const std::string& path, std::string& why);

  std::string_view view() const { return {data_.get(), size_}; }
  // Bytes readable from view().data(): size + kPadding (the padding is zero).
  size_t capacity() const { return data_ ? size_ + kPadding : 0; }
  // Whether the text is the file mapped in place (large files).
  bool mapsFile() const { return maps_file_; }

 private:
  struct Release {
    Release() noexcept {}  // NOLINT(modernize-use-equals-default): needed inside the incomplete class
    explicit Release(size_t mapped) noexcept : mapped_bytes(mapped) {}
    size_t mapped_bytes = 0;  // 0: allocated with new[]
    void operator()(char* p) const;
  };
  static TextBuffer allocate(size_t size);
  static std::optional<TextBuffer> mapFile(int fd, size_t size);

  std::unique_ptr<char, Release> data_;
  size_t size_ = 0;
  bool maps_file_ = false;
};

}  // namespace fc
