// docs/nvfuser-history.md is `fusecheck history --format markdown`: a new
// row of nvfuser_history.def reaches the page when it is regenerated, and a
// stale page fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "driver/history_cmd.h"
#include "pipeline/history.h"

namespace fc {
namespace {

TEST(HistoryDoc, DocsPageIsTheGeneratedTable) {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/docs/nvfuser-history.md");
  ASSERT_TRUE(in) << "docs/nvfuser-history.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), driver::historyMarkdown())
      << "docs/nvfuser-history.md is stale: regenerate it with "
         "`fusecheck history --format markdown > docs/nvfuser-history.md`";
}

TEST(HistoryDoc, EveryChangeHasARow) {
  const std::string t = driver::historyMarkdown();
  for (const nv::Change& c : nv::changes())
    EXPECT_NE(t.find("| #" + std::to_string(c.pr) + " | `" + c.shortCommit() + "` |"), std::string::npos)
        << c.pr;
}

}  // namespace
}  // namespace fc
