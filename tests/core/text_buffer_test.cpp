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
  // Larger than the threshold for an anonymous mapping, and not a multiple
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

TEST(TextBuffer, EmptyFileAndCopiedText) {
  std::string path = tempPath("empty");
  writeFile(path, "");
  std::string why;
  auto b = TextBuffer::readFile(path, why);
  ASSERT_TRUE(b.has_value()) << why;
  expectPadded(*b, "");
  std::filesystem::remove(path);
  expectPadded(TextBuffer(std::string_view("abc")), "abc");
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

}  // namespace
}  // namespace fc
