// docs/ops.md is `fusecheck ops --markdown`: a new ops.def row reaches the
// page when it is regenerated, and a stale page fails here.
#include "driver/ops_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ir/op_kind.h"

namespace fc {
namespace {

TEST(OpsTable, DocsPageIsTheGeneratedTable) {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/docs/ops.md");
  ASSERT_TRUE(in) << "docs/ops.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), driver::opTableMarkdown())
      << "docs/ops.md is stale: regenerate it with `fusecheck ops --markdown > docs/ops.md`";
}

TEST(OpsTable, EveryOpHasARow) {
  const std::string t = driver::opTableMarkdown();
  for (int k = 0; k < numOpKinds(); ++k)
    EXPECT_NE(t.find("| `" + std::string(opInfo(static_cast<OpKind>(k)).name) + "` |"), std::string::npos)
        << opInfo(static_cast<OpKind>(k)).name;
}

}  // namespace
}  // namespace fc
