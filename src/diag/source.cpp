#include "diag/source.h"

#include <algorithm>

namespace fc {

SourceText& SourceText::operator=(SourceText&& o) noexcept {
  if (this == &o) return *this;
  bool in_buffer = o.buffer_.capacity() > 0;
  path_ = std::move(o.path_);
  owned_ = std::move(o.owned_);  // may be a short string: re-point text_ below
  buffer_ = std::move(o.buffer_);
  line_starts_ = std::move(o.line_starts_);
  text_ = in_buffer ? buffer_.view() : std::string_view(owned_);
  o.text_ = {};
  o.owned_.clear();
  o.line_starts_.clear();
  return *this;
}

void SourceText::index() const {
  if (!line_starts_.empty()) return;
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

LineCol SourceText::lineCol(size_t offset) const {
  index();
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
  size_t start = line_starts_[line - 1];
  return LineCol{static_cast<int>(line), static_cast<int>(offset - start + 1)};
}

std::string_view SourceText::lineText(int line) const {
  index();
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return {};
  size_t start = line_starts_[line - 1];
  size_t end = static_cast<size_t>(line) < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view v(text_.data() + start, end - start);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

}  // namespace fc
