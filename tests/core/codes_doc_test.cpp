// docs/diagnostics.md documents every code of src/diag/codes.def (a
// "### FCnnnn slug" heading each) and nothing else; the codes themselves
// are unique and well-formed.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "diag/diagnostic.h"

namespace fc {
namespace {

std::string readDoc() {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/docs/diagnostics.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "### FC0203 dtype-mismatch" -> {"FC0203", "dtype-mismatch"}
std::map<std::string, std::string> docHeadings(const std::string& doc) {
  std::map<std::string, std::string> out;
  std::istringstream is(doc);
  std::string line;
  while (std::getline(is, line)) {
    if (line.rfind("### FC", 0) != 0) continue;
    std::istringstream ls(line.substr(4));
    std::string id, slug;
    ls >> id >> slug;
    EXPECT_TRUE(out.emplace(id, slug).second) << "documented twice: " << id;
  }
  return out;
}

TEST(CodesDoc, EveryCodeIsDocumented) {
  std::string doc = readDoc();
  ASSERT_FALSE(doc.empty()) << "cannot read docs/diagnostics.md under " << FC_SOURCE_DIR;
  auto headings = docHeadings(doc);
  for (const DiagCodeInfo& c : allDiagCodes()) {
    auto it = headings.find(std::string(c.id));
    ASSERT_NE(it, headings.end()) << c.id << " (" << c.slug << ") is not documented in docs/diagnostics.md";
    EXPECT_EQ(it->second, c.slug) << c.id;
  }
}

TEST(CodesDoc, NoStaleCodesInDoc) {
  auto headings = docHeadings(readDoc());
  std::set<std::string> known;
  for (const DiagCodeInfo& c : allDiagCodes()) known.insert(std::string(c.id));
  for (const auto& [id, slug] : headings)
    EXPECT_TRUE(known.count(id)) << id << " is documented but not in codes.def";
}

TEST(CodesDoc, CodesAreUniqueAndWellFormed) {
  std::set<std::string> ids, slugs;
  for (const DiagCodeInfo& c : allDiagCodes()) {
    EXPECT_TRUE(ids.insert(std::string(c.id)).second) << c.id;
    EXPECT_TRUE(slugs.insert(std::string(c.slug)).second) << c.slug;
    ASSERT_EQ(c.id.size(), 6u) << c.id;
    EXPECT_EQ(c.id.substr(0, 2), "FC");
    EXPECT_FALSE(c.summary.empty()) << c.id;
  }
}

}  // namespace
}  // namespace fc
