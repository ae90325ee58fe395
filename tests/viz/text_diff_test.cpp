// Myers diff: every script reproduces both sides and is minimal (checked
// against an O(N·M) LCS table on the paper's example and on pseudo-random
// inputs), long inputs with few edits work without recursion, and the
// unified format / hunk grouping are exact.
#include "viz/text_diff.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fc::viz {
namespace {

using Seq = std::vector<uint32_t>;

size_t lcsLength(const Seq& a, const Seq& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      t[i][j] = a[i] == b[j] ? t[i + 1][j + 1] + 1 : std::max(t[i + 1][j], t[i][j + 1]);
  return t[0][0];
}

// The script walks both sequences in order and its Equal lines match.
void expectValid(const Seq& a, const Seq& b, const std::vector<DiffLine>& s) {
  size_t i = 0, j = 0;
  for (const DiffLine& l : s) {
    switch (l.op) {
      case DiffOp::Equal:
        ASSERT_EQ(l.a, i);
        ASSERT_EQ(l.b, j);
        ASSERT_EQ(a[i], b[j]);
        ++i, ++j;
        break;
      case DiffOp::Delete:
        ASSERT_EQ(l.a, i);
        ASSERT_EQ(l.b, DiffLine::npos);
        ++i;
        break;
      case DiffOp::Insert:
        ASSERT_EQ(l.b, j);
        ASSERT_EQ(l.a, DiffLine::npos);
        ++j;
        break;
    }
  }
  EXPECT_EQ(i, a.size());
  EXPECT_EQ(j, b.size());
}

size_t edits(const std::vector<DiffLine>& s) {
  size_t n = 0;
  for (const DiffLine& l : s) n += l.op != DiffOp::Equal;
  return n;
}

Seq seq(const std::string& s) { return Seq(s.begin(), s.end()); }

TEST(TextDiff, MyersPaperExample) {
  Seq a = seq("ABCABBA"), b = seq("CBABAC");
  auto s = diffSequences(a, b);
  expectValid(a, b, s);
  EXPECT_EQ(edits(s), 5u);  // D = 5 in the paper
}

TEST(TextDiff, EmptySides) {
  EXPECT_TRUE(diffSequences({}, {}).empty());
  auto del = diffSequences(seq("abc"), {});
  expectValid(seq("abc"), {}, del);
  EXPECT_EQ(edits(del), 3u);
  auto ins = diffSequences({}, seq("xy"));
  expectValid({}, seq("xy"), ins);
  EXPECT_EQ(edits(ins), 2u);
}

TEST(TextDiff, NothingInCommon) {
  Seq a = seq("abcd"), b = seq("wxyz");
  auto s = diffSequences(a, b);
  expectValid(a, b, s);
  EXPECT_EQ(edits(s), 8u);
}

TEST(TextDiff, MinimalOnPseudoRandomInputs) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int round = 0; round < 400; ++round) {
    size_t n = next() % 40, m = next() % 40;
    uint32_t alphabet = 1 + static_cast<uint32_t>(next() % 5);
    Seq a(n), b(m);
    for (auto& x : a) x = static_cast<uint32_t>(next() % alphabet);
    for (auto& x : b) x = static_cast<uint32_t>(next() % alphabet);
    auto s = diffSequences(a, b);
    expectValid(a, b, s);
    EXPECT_EQ(edits(s), n + m - 2 * lcsLength(a, b)) << "round " << round;
  }
}

TEST(TextDiff, LongInputWithFewEdits) {
  Seq a(50000), b;
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint32_t>(i);
  b = a;
  b.erase(b.begin() + 100);
  b.insert(b.begin() + 30000, 999999u);
  b[45000] = 888888u;
  auto s = diffSequences(a, b);
  expectValid(a, b, s);
  EXPECT_EQ(edits(s), 4u);  // one delete, one insert, one replace (delete + insert)
}

TEST(TextDiff, LinesAndCounts) {
  TextDiff d = diffText("a\nb\nc\n", "a\nB\nc\nd\n");
  EXPECT_EQ(d.a.size(), 3u);
  EXPECT_EQ(d.b.size(), 4u);
  EXPECT_EQ(d.removed, 1u);
  EXPECT_EQ(d.added, 2u);
  EXPECT_FALSE(d.identical());
  EXPECT_TRUE(diffText("x\ny", "x\ny\n").identical());  // a trailing newline is not a line
  EXPECT_EQ(splitLines("").size(), 0u);
  EXPECT_EQ(splitLines("\n\n").size(), 2u);
}

TEST(TextDiff, UnifiedFormat) {
  TextDiff d = diffText("one\ntwo\nthree\n", "one\n2\nthree\nfour\n");
  EXPECT_EQ(unifiedDiff(d, "old", "new"),
            "--- old\n+++ new\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n");
  EXPECT_EQ(unifiedDiff(diffText("same\n", "same\n"), "a", "b"), "");
}

TEST(TextDiff, HunksSplitOnLongUnchangedRuns) {
  std::string a, b;
  for (int i = 0; i < 30; ++i) a += "line " + std::to_string(i) + "\n";
  b = a;
  b.replace(b.find("line 2\n"), 7, "LINE 2\n");
  b.replace(b.find("line 25\n"), 8, "LINE 25\n");
  TextDiff far = diffText(a, b);
  auto hunks = diffHunks(far, 3);
  ASSERT_EQ(hunks.size(), 2u);
  EXPECT_EQ(hunks[0].a_start, 1u);  // lines 1..6: two before the change, three after
  EXPECT_EQ(hunks[0].a_count, 6u);
  EXPECT_EQ(hunks[1].a_start, 23u);  // "line 25" is line 26
  EXPECT_EQ(hunks[1].a_count, 7u);
  // With a context wider than half the gap the two hunks merge.
  EXPECT_EQ(diffHunks(far, 12).size(), 1u);
}

}  // namespace
}  // namespace fc::viz
