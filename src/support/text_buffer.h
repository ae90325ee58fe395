// An owned block of input text followed by kPadding zero bytes, so that a
// SIMD parser (simdjson reads up to 64 bytes past the end) can use it in
// place: reading a repro costs one copy from the page cache and nothing more.
//
// Large files are read into an anonymous mapping advised for transparent huge
// pages: a 350 MB repro then takes a few hundred page faults instead of ~90k,
// and the buffer is not zero-filled before being overwritten.
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

 private:
  struct Release {
    Release() noexcept {}  // NOLINT(modernize-use-equals-default): needed inside the incomplete class
    explicit Release(size_t mapped) noexcept : mapped_bytes(mapped) {}
    size_t mapped_bytes = 0;  // 0: allocated with new[]
    void operator()(char* p) const;
  };
  static TextBuffer allocate(size_t size);

  std::unique_ptr<char, Release> data_;
  size_t size_ = 0;
};

}  // namespace fc
