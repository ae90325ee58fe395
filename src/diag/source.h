// The text of an input file, with a lazily built line index so that byte
// offsets map to 1-based line:col (columns count bytes) on the error path.
// A UTF-8 byte-order mark at the start is not part of the text: editors
// show none, so offsets, lines and columns are counted after it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
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
    text_ = withoutBom(owned_);
  }
  // A file read with TextBuffer::readFile: parsers can use it in place.
  SourceText(std::string path, TextBuffer text) : path_(std::move(path)), buffer_(std::move(text)) {
    text_ = withoutBom(buffer_.view());
  }
  SourceText(const SourceText& o) : path_(o.path_), owned_(o.text_), blocks_(o.blocks_), arrays_(o.arrays_) {
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
  size_t readableBytes() const {
    size_t whole = buffer_.capacity() > 0 ? buffer_.capacity() : owned_.capacity();
    return whole - bomBytes();
  }
  // 3 when the input began with a UTF-8 byte-order mark (left out of text()), else 0.
  size_t bomBytes() const {
    const char* start = buffer_.capacity() > 0 ? buffer_.view().data() : owned_.data();
    return text_.data() == nullptr ? 0 : static_cast<size_t>(text_.data() - start);
  }
  LineCol lineCol(size_t offset) const;
  // The text of 1-based line `line`, without its newline.
  std::string_view lineText(int line) const;

  // Offsets of the elements of an array whose '[' is at `open`, recorded by
  // a parser that walked the array anyway (the repro reader does it for the
  // large top-level arrays), so that locating a diagnostic (fillLocations)
  // need not scan the array again: on a failing 1M-expr repro that scan was
  // a second pass over most of the file. A cache, like the line index.
  void recordArray(size_t open, std::vector<size_t> elements) const;
  const std::vector<size_t>* recordedArray(size_t open) const;

 private:
  static std::string_view withoutBom(std::string_view t) {
    return t.substr(0, 3) == "\xEF\xBB\xBF" ? t.substr(3) : t;
  }
  void index() const;
  std::string path_;
  std::string owned_;  // text given as a string
  TextBuffer buffer_;  // or read from a file
  std::string_view text_;
  // The line index is sparse: per 4 KiB block, what a lookup needs to finish
  // inside that block. O(size / 4096) memory, built in one counting pass; a
  // lookup scans at most two blocks. (A vector of every line start took
  // 100 MB and most of the locating time on a failing 1M-expr repro.)
  struct LineBlock {
    size_t newlines_before = 0;  // newlines in text[0, k * kLineBlock)
    size_t line_start = 0;       // start of the line holding offset k * kLineBlock
    size_t next_newline = 0;     // first newline at or after k * kLineBlock; size() if none
  };
  static constexpr size_t kLineBlock = 4096;
  // One per block, and one for the end of the text.
  mutable std::vector<LineBlock> blocks_;
  // Recorded arrays: the offset of '[' and the offsets of the elements.
  mutable std::vector<std::pair<size_t, std::vector<size_t>>> arrays_;
};

}  // namespace fc
