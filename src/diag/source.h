// The text of an input file, with a lazily built line index so that byte
// offsets map to 1-based line:col (columns count bytes) on the error path.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "support/text_buffer.h"

namespace fc {

struct LineCol {
  int line = 0;
  int col = 0;
};

class SourceText {
 public:
  SourceText() = default;
  SourceText(std::string path, std::string text) : path_(std::move(path)), owned_(std::move(text)) {
    text_ = owned_;
  }
  // A file read with TextBuffer::readFile: parsers can use it in place.
  SourceText(std::string path, TextBuffer text) : path_(std::move(path)), buffer_(std::move(text)) {
    text_ = buffer_.view();
  }
  SourceText(const SourceText& o) : path_(o.path_), owned_(o.text_), line_starts_(o.line_starts_) {
    text_ = owned_;
  }
  SourceText& operator=(const SourceText& o) {
    if (this != &o) *this = SourceText(o);
    return *this;
  }
  SourceText(SourceText&& o) noexcept { *this = std::move(o); }
  SourceText& operator=(SourceText&& o) noexcept;

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  // Bytes readable from text().data(), at least text().size(); those past
  // the end are zero when this is at least size + TextBuffer::kPadding.
  size_t readableBytes() const { return buffer_.capacity() > 0 ? buffer_.capacity() : owned_.capacity(); }
  LineCol lineCol(size_t offset) const;
  // The text of 1-based line `line`, without its newline.
  std::string_view lineText(int line) const;

 private:
  void index() const;
  std::string path_;
  std::string owned_;  // text given as a string
  TextBuffer buffer_;  // or read from a file
  std::string_view text_;
  mutable std::vector<size_t> line_starts_;
};

}  // namespace fc
