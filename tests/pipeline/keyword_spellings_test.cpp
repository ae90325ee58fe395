// The keyword spellings table: every row names a call and keyword the importer records, each
// spelling holds over one stretch of history, and a script's spellings bound its points.
#include "pipeline/keyword_spellings.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "io/python/frontend_ops.h"
#include "pipeline/profile.h"

namespace fc {
namespace {

std::vector<std::string_view> split(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    out.push_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

TEST(KeywordSpellings, RowsNameCallsAndKeywordsTheImporterBinds) {
  ASSERT_EQ(keywordSpellings().size(), datedSpellings().size());  // every `when` resolved
  for (const KeywordSpelling& k : keywordSpellings()) {
    const DatedSpelling& r = *k.row;
    SCOPED_TRACE(std::string(r.calls) + " " + std::string(r.keyword));
    if (r.origin_kind == "cpp-test") {
      // A template argument of the C++ reader's IrBuilder::create, or the argument list of
      // sdpfa_fwd (the reader records both forms, opaque_calls.cpp).
      if (r.calls == "IrBuilder::create")
        EXPECT_TRUE(r.keyword.starts_with("<") && r.keyword.ends_with(">"));
      else
        EXPECT_TRUE(r.calls == "sdpfa_fwd" && r.keyword.starts_with("(query, key, value, ") &&
                    r.keyword.ends_with("dropout_p, is_causal, scale)"));
      EXPECT_TRUE(datesScript(r.origin_kind, r.calls, r.keyword));
      continue;
    }
    EXPECT_TRUE(r.origin_kind == "python-legacy" || r.origin_kind == "python-direct");
    for (std::string_view call : split(r.calls)) {
      EXPECT_TRUE(datesScript(r.origin_kind, call, r.keyword));
      if (call == "fd.define_tensor") {
        const std::vector<std::string_view> known = {"shape", "contiguity", "symbolic_sizes", "contiguous"};
        EXPECT_NE(std::find(known.begin(), known.end(), r.keyword), known.end());
        continue;
      }
      ASSERT_TRUE(call.starts_with("fd.ops."));
      const py::FrontendOp* op = py::findFrontendOp(call.substr(7));
      ASSERT_NE(op, nullptr);
      if (r.keyword.starts_with("(")) continue;  // a form of the argument list (ops_build.cpp)
      bool named = false;
      for (const std::string& p : py::paramNames(*op)) named |= p == r.keyword;
      for (const auto& [old, now] : py::keywordRenames(*op)) named |= old == r.keyword;
      EXPECT_TRUE(named) << "the importer binds no such keyword";
    }
  }
  EXPECT_FALSE(datesScript("python-legacy", "fd.ops.sum", "keepdim"));  // never renamed in legacy
}

TEST(KeywordSpellings, EachSpellingHoldsOverOneStretchOfHistory) {
  for (const KeywordSpelling& r : keywordSpellings()) {
    bool in = nv::switchInfo(r.sw).initial == r.value, left = false;
    for (const nv::Change& c : nv::changes()) {
      if (c.sw != r.sw) continue;
      if (c.value == r.value) {
        EXPECT_FALSE(left) << r.row->keyword << ": bound again after it was renamed away";
        in = true;
      } else if (in) {
        left = true;
        in = false;
      }
    }
  }
}

Fusion scriptSpelling(std::string kind, std::string call, std::string keyword) {
  Fusion f;
  f.origin = ReproOrigin{kind, kind == "python-direct" ? "direct" : "python", "", "", {}, "", ""};
  f.origin->keywords.push_back(KeywordUse{std::move(call), std::move(keyword), {10, 25}});
  return f;
}

TEST(KeywordSpellings, AxesBindsUntilTheRenameAndDimsFromIt) {
  const nv::Change* rename = nv::firstChangeTo(nv::ReductionDimsKeyword::Dims);
  ASSERT_NE(rename, nullptr);
  EXPECT_EQ(rename->pr, 1741);
  const Fusion axes = scriptSpelling("python-legacy", "fd.ops.sum", "axes");
  EXPECT_FALSE(spellingConflict(axes, Frontend::Python, rename->pos - 1));
  auto c = spellingConflict(axes, Frontend::Python, rename->pos);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->too_old);
  EXPECT_EQ(c->change, rename);
  EXPECT_NE(spellingConflictText(*c).find("fd.ops.sum's `axes=` (line 10) is a keyword the frontend stopped"),
            std::string::npos);
  auto b = lastPointSpelled(axes, Frontend::Python);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->last_pos, rename->pos - 1);
  // Not through another frontend, and not for a repro of another one.
  EXPECT_FALSE(spellingConflict(axes, Frontend::Cpp, rename->pos));
  EXPECT_FALSE(
      spellingConflict(scriptSpelling("python-direct", "fd.ops.sum", "axes"), Frontend::Direct, rename->pos));

  const Fusion dims = scriptSpelling("python-legacy", "fd.ops.var", "dims");
  auto early = spellingConflict(dims, Frontend::Python, rename->pos - 1);
  ASSERT_TRUE(early);
  EXPECT_FALSE(early->too_old);
  EXPECT_FALSE(spellingConflict(dims, Frontend::Python, rename->pos));
  EXPECT_FALSE(lastPointSpelled(dims, Frontend::Python));  // never renamed away
}

}  // namespace
}  // namespace fc
