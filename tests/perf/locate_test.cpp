// fillLocations' shared container index (io/json_locate.cpp) must place
// every diagnostic exactly where a fresh single-pointer scan does, including
// pointers that only partly resolve (longest-prefix fallback).
#include <gtest/gtest.h>

#include <string>

#include "diag/diagnostic.h"
#include "io/json_locate.h"
#include "io/reader.h"
#include "io/writer.h"
#include "synth.h"

namespace fc {
namespace {

LineCol expected(const SourceText& src, const std::string& pointer) {
  // Longest resolving prefix, one independent scan per prefix.
  std::string p = pointer;
  while (true) {
    if (auto off = locateJsonPointer(src.text(), p)) return src.lineCol(*off);
    if (p.empty()) return LineCol{0, 0};
    p.erase(p.rfind('/'));
  }
}

std::vector<std::string> samplePointers(const Fusion& f) {
  std::vector<std::string> pointers;
  for (size_t t = 0; t < f.tensors.size(); t += 7) {
    pointers.push_back("/tensors/" + std::to_string(t) + "/logical/0");
    pointers.push_back("/tensors/" + std::to_string(t) + "/name");
    pointers.push_back("/tensors/" + std::to_string(t) + "/logical/9");  // falls back to /logical
  }
  for (size_t e = 0; e < f.exprs.size(); e += 5)
    pointers.push_back("/exprs/" + std::to_string(e) + "/inputs/1");
  pointers.push_back("/exprs/999999");  // falls back to /exprs
  pointers.push_back("/nope/1");        // falls back to the document
  pointers.push_back("/concrete_inputs/3/shape/0");
  pointers.push_back("/tensors/0/logical/0");  // again: served from the index
  for (size_t s = 0; s < f.scalars.size(); s += 11) pointers.push_back("/scalars/" + std::to_string(s));
  return pointers;
}

void expectFillMatchesSingleScans(const SourceText& src, const std::vector<std::string>& pointers) {
  std::vector<Diagnostic> diags;
  for (const auto& p : pointers) {
    Diagnostic d;
    d.loc.file = "x.json";
    d.loc.pointer = p;
    diags.push_back(d);
  }
  fillLocations(diags, src);
  for (size_t i = 0; i < diags.size(); ++i) {
    LineCol want = expected(src, pointers[i]);
    EXPECT_EQ(diags[i].loc.line, want.line) << pointers[i];
    EXPECT_EQ(diags[i].loc.col, want.col) << pointers[i];
    EXPECT_GT(diags[i].loc.line, 0) << pointers[i];
  }
}

TEST(Locate, IndexedFillMatchesSingleScans) {
  Fusion f = synth::transformer({600, 5, true});
  SourceText src("x.json", writeFusion(f));
  expectFillMatchesSingleScans(src, samplePointers(f));
}

// The reader records the element offsets of the large top-level arrays as it
// walks them; locating through those must give the same places, whatever
// the whitespace around the elements.
TEST(Locate, ArraysRecordedByTheReaderMatchSingleScans) {
  Fusion f = synth::transformer({600, 5, true});
  std::string compact = writeFusion(f);
  std::string spaced;
  for (char c : compact) {
    if (c == '[' || c == ',') {
      spaced += c;
      spaced += " \n\t ";
    } else if (c == '{') {
      spaced += "\r\n {";
    } else {
      spaced += c;
    }
  }
  for (const std::string* text : {&compact, &spaced}) {
    SourceText src("x.json", *text);
    DiagnosticSink sink;
    auto g = readFusion(src, sink);
    ASSERT_TRUE(g.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
    size_t tensors_at = src.text().find("\"tensors\"");
    size_t open = src.text().find('[', tensors_at);
    const std::vector<size_t>* rec = src.recordedArray(open);
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(rec->size(), f.tensors.size());
    EXPECT_EQ(src.text()[rec->front()], '{');
    expectFillMatchesSingleScans(src, samplePointers(f));
  }
}

// An array the reader stopped in (a bad element) is not recorded: the
// locator scans it as before.
TEST(Locate, ArraysWithErrorsAreNotRecorded) {
  Fusion f = synth::transformer({200, 5, false});
  std::string text = writeFusion(f);
  size_t tensors_at = text.find("\"tensors\"");
  size_t name_at = text.find("\"name\"", text.find('{', text.find('[', tensors_at) + 1));
  ASSERT_NE(name_at, std::string::npos);
  text.replace(name_at, 6, "\"nmae\"");
  SourceText src("x.json", text);
  DiagnosticSink sink;
  EXPECT_FALSE(readFusion(src, sink).has_value());
  EXPECT_EQ(src.recordedArray(text.find('[', tensors_at)), nullptr);
  ASSERT_FALSE(sink.all().empty());
  EXPECT_GT(sink.all()[0].loc.line, 0);
}

}  // namespace
}  // namespace fc
