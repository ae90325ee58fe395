// Line diffs for the HTML report's step diffs: Myers'
// O((N+M)·D) algorithm in its linear-space form (middle snake, divide and
// conquer), run with an explicit work stack so that no input recurses.
// Lines are interned to integers first, so a comparison is O(1).
// Time O((N+M)·D) for N and M lines and D edits; space O(N+M).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fc::viz {

enum class DiffOp : uint8_t { Equal, Delete, Insert };

// One line of an edit script. `a` / `b` are 0-based line indexes into the
// old / new text (npos where the line is absent on that side).
struct DiffLine {
  static constexpr size_t npos = static_cast<size_t>(-1);
  DiffOp op = DiffOp::Equal;
  size_t a = npos;
  size_t b = npos;
};

// Shortest edit script turning `a` into `b`, in order: every line of `a`
// appears once as Equal or Delete, every line of `b` once as Equal or
// Insert, and the number of Delete + Insert entries is minimal.
std::vector<DiffLine> diffSequences(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

// Splits on '\n' (a trailing newline does not make an empty last line).
std::vector<std::string_view> splitLines(std::string_view text);

// Line diff of two texts (views into `old_text` / `new_text`).
struct TextDiff {
  std::vector<std::string_view> a, b;  // the lines
  std::vector<DiffLine> script;
  size_t added = 0, removed = 0;
  bool identical() const { return added == 0 && removed == 0; }
};
TextDiff diffText(std::string_view old_text, std::string_view new_text);

// A hunk of a unified diff: script[begin, end) with up to `context`
// unchanged lines around its changes.
struct DiffHunk {
  size_t begin = 0, end = 0;
  size_t a_start = 0, a_count = 0;  // 1-based start as in "@@ -a_start,a_count"
  size_t b_start = 0, b_count = 0;
};
std::vector<DiffHunk> diffHunks(const TextDiff& d, size_t context);

// "--- old\n+++ new\n@@ -1,3 +1,3 @@\n ..." (empty when identical).
std::string unifiedDiff(const TextDiff& d, std::string_view old_name, std::string_view new_name,
                        size_t context = 3);

}  // namespace fc::viz
