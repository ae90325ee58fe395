// fillLocations' shared container index (io/json_locate.cpp) must place
// every diagnostic exactly where a fresh single-pointer scan does, including
// pointers that only partly resolve (longest-prefix fallback).
#include <gtest/gtest.h>

#include <string>

#include "io/json_locate.h"
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

TEST(Locate, IndexedFillMatchesSingleScans) {
  Fusion f = synth::transformer({600, 5, true});
  SourceText src("x.json", writeFusion(f));
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

}  // namespace
}  // namespace fc
