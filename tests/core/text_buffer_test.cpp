// TextBuffer and SourceText: the text a parser reads in place is exactly the
// file, followed by zero padding; errors are sentences; moving a SourceText
// keeps its view valid (short strings live inside the object).
#include "support/text_buffer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "diag/source.h"

namespace fc {
namespace {

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("fc_text_buffer_" + name)).string();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

void expectPadded(const TextBuffer& b, const std::string& want) {
  ASSERT_EQ(b.view(), want);
  ASSERT_EQ(b.capacity(), want.size() + TextBuffer::kPadding);
  for (size_t i = 0; i < TextBuffer::kPadding; ++i) EXPECT_EQ(b.view().data()[want.size() + i], '\0') << i;
}

TEST(TextBuffer, SmallAndLargeFilesReadExactlyWithZeroPadding) {
  std::string small = "{\"format\": \"fusecheck.fusion/1\"}\n";
  // Larger than the threshold for mapping the file, and not a multiple
  // of the page size, so the padding crosses into the last page.
  std::string large(size_t{5} << 20, 'x');
  for (size_t i = 0; i < large.size(); i += 4093) large[i] = static_cast<char>('a' + i % 26);
  large.resize(large.size() - 17);
  for (const std::string* text : {&small, &large}) {
    std::string path = tempPath(std::to_string(text->size()));
    writeFile(path, *text);
    std::string why;
    auto b = TextBuffer::readFile(path, why);
    ASSERT_TRUE(b.has_value()) << why;
    expectPadded(*b, *text);
    std::filesystem::remove(path);
  }
}

// Large files are mapped: the padding is the zero tail of the file's last
// page, or a zero page after it when the file ends at (or near) a page end.
TEST(TextBuffer, LargeFilesAreMappedWithZeroPadding) {
  for (size_t size :
       {size_t{5} << 20, (size_t{5} << 20) - 100, (size_t{5} << 20) - 17, (size_t{5} << 20) + 1}) {
    std::string text(size, 'y');
    for (size_t i = 0; i < size; i += 997) text[i] = static_cast<char>('0' + i % 10);
    text.back() = '}';
    std::string path = tempPath("mapped_" + std::to_string(size));
    writeFile(path, text);
    std::string why;
    auto b = TextBuffer::readFile(path, why);
    ASSERT_TRUE(b.has_value()) << why;
    EXPECT_TRUE(b->mapsFile()) << size;
    expectPadded(*b, text);
    TextBuffer moved = std::move(*b);
    expectPadded(moved, text);
    std::filesystem::remove(path);  // the mapping outlives the name
    expectPadded(moved, text);
  }
}

TEST(TextBuffer, EmptyFileAndCopiedText) {
  std::string path = tempPath("empty");
  writeFile(path, "");
  std::string why;
  auto b = TextBuffer::readFile(path, why);
  ASSERT_TRUE(b.has_value()) << why;
  expectPadded(*b, "");
  std::filesystem::remove(path);
  expectPadded(TextBuffer(std::string_view("abc")), "abc");
  EXPECT_FALSE(TextBuffer(std::string_view("abc")).mapsFile());
}

TEST(TextBuffer, MissingFileAndDirectoryAreErrors) {
  std::string why;
  EXPECT_FALSE(TextBuffer::readFile(tempPath("does_not_exist"), why).has_value());
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(TextBuffer::readFile(std::filesystem::temp_directory_path().string(), why).has_value());
  EXPECT_EQ(why, "is a directory");
}

TEST(SourceText, MovesAndCopiesKeepTheirText) {
  SourceText a("a.json", std::string("{}"));  // short: inside the string object
  SourceText b(std::move(a));
  EXPECT_EQ(b.text(), "{}");
  EXPECT_EQ(b.lineCol(1).col, 2);
  SourceText c;
  c = b;
  EXPECT_EQ(c.text(), "{}");
  EXPECT_NE(c.text().data(), b.text().data());
  SourceText d("d.json", TextBuffer(std::string_view("[1,\n2]")));
  EXPECT_GE(d.readableBytes(), d.text().size() + TextBuffer::kPadding);
  SourceText e;
  e = std::move(d);
  EXPECT_EQ(e.text(), "[1,\n2]");
  EXPECT_EQ(e.lineText(2), "2]");
  EXPECT_EQ(e.path(), "d.json");
}

// The line index reads eight bytes at a time: every newline position (first
// and last byte, runs of newlines, high bytes around them, a tail shorter
// than a word) maps to the same line:col as a byte-by-byte count.
TEST(SourceText, LineColMatchesAByteByByteCount) {
  std::string text;
  uint32_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 1103515245u + 12345u;
    uint32_t r = (x >> 16) % 7;
    text += r == 0 ? '\n' : r == 1 ? static_cast<char>(0x80 | (x & 0x7f)) : r == 2 ? '\x0b' : 'a';
  }
  text[0] = '\n';
  text += "\n\n\nab\n";
  for (size_t cut : {text.size(), text.size() - 1, text.size() - 3, size_t{7}, size_t{8}, size_t{9}}) {
    SourceText src("t.json", text.substr(0, cut));
    int line = 1, col = 1;
    for (size_t off = 0; off < cut; ++off) {
      LineCol lc = src.lineCol(off);
      ASSERT_EQ(lc.line, line) << "cut " << cut << " offset " << off;
      ASSERT_EQ(lc.col, col) << "cut " << cut << " offset " << off;
      if (text[off] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    // Every line's text, and nothing past the last one.
    std::string_view whole(src.text());
    size_t start = 0;
    int n = 1;
    for (;; ++n) {
      size_t nl = whole.find('\n', start);
      std::string_view want =
          whole.substr(start, nl == std::string_view::npos ? whole.size() - start : nl - start);
      ASSERT_EQ(src.lineText(n), want) << "cut " << cut << " line " << n;
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    EXPECT_EQ(src.lineText(n + 1), "");
    EXPECT_EQ(src.lineText(0), "");
  }
}

// Lines longer than the index's blocks (a minified repro is one line).
TEST(SourceText, LongLinesAcrossIndexBlocks) {
  std::string text(20000, 'x');
  text[9000] = '\n';
  text += "\r\nend";
  SourceText src("t.json", text);
  EXPECT_EQ(src.lineCol(8999).line, 1);
  EXPECT_EQ(src.lineCol(8999).col, 9000);
  EXPECT_EQ(src.lineCol(15000).line, 2);
  EXPECT_EQ(src.lineCol(15000).col, 6000);
  EXPECT_EQ(src.lineText(1).size(), 9000u);
  EXPECT_EQ(src.lineText(2).size(), 20000u - 9001u);  // the \r is dropped
  EXPECT_EQ(src.lineText(3), "end");
  EXPECT_EQ(src.lineCol(text.size()).line, 3);
  EXPECT_EQ(src.lineCol(text.size() + 100).col, 4);  // clamped to the end
}

}  // namespace
}  // namespace fc
