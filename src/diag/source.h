// The text of an input file, with a lazily built line index so that byte
// offsets map to 1-based line:col (columns count bytes) on the error path.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fc {

struct LineCol {
  int line = 0;
  int col = 0;
};

class SourceText {
 public:
  SourceText() = default;
  SourceText(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  LineCol lineCol(size_t offset) const;
  // The text of 1-based line `line`, without its newline.
  std::string_view lineText(int line) const;

 private:
  void index() const;
  std::string path_;
  std::string text_;
  mutable std::vector<size_t> line_starts_;
};

}  // namespace fc
