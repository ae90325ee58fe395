// A text an importer reads and where each of its bytes came from in the file the user gave. The
// paste repairer (markdown removed, lines split, `+` of a diff dropped) and the C++-test reader
// build such texts; diagnostics and source maps then point into the user's file, not into the
// repaired copy. A plain file is its own map.
//
// Complexity: a lookup is a binary search over the edits.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"

namespace fc {

class MappedText {
 public:
  // The source itself.
  explicit MappedText(const SourceText& source) : source_(&source) {}

  std::string_view text() const { return owned_ ? std::string_view(text_) : source_->text(); }
  const SourceText& source() const { return *source_; }
  // The offset in the source of byte `off` of text().
  size_t sourceOffset(size_t off) const;
  // file, line:col in the source (no JSON pointer).
  Location location(size_t off) const;
  bool edited() const { return owned_; }

  // Builds a text from pieces of `base` (a source, or a text built from one) and inserted bytes.
  class Builder {
   public:
    explicit Builder(const MappedText& base) : base_(&base) {}
    // Appends base bytes [from, from + len).
    void copy(size_t from, size_t len);
    // Appends bytes that stand for base byte `at` (a repair: `+` for a bullet, a line break).
    void insert(std::string_view s, size_t at);
    size_t size() const { return text_.size(); }
    MappedText build() &&;

   private:
    void anchor(size_t base_off, bool synthetic);
    const MappedText* base_;
    std::string text_;
    struct Anchor {
      size_t at;    // first byte of text_ this anchor covers
      size_t base;  // base offset of that byte
      bool synthetic;
    };
    std::vector<Anchor> anchors_;
    friend class MappedText;
  };

 private:
  struct Anchor {
    size_t at;
    size_t src;
    bool synthetic;
  };
  const SourceText* source_;
  bool owned_ = false;
  std::string text_;
  std::vector<Anchor> anchors_;  // sorted by `at`; offsets map to src + (off - at)
};

}  // namespace fc
