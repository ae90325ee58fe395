// `fusecheck history [POINT]`: the change points fusecheck models, or what a
// point resolves to. `--format markdown` is docs/nvfuser-history.md.
#pragma once

#include <iosfwd>
#include <string>

#include "driver/common.h"

namespace fc::driver {

enum class HistoryFormat { Text, Json, Markdown };

struct HistoryArgs {
  std::string point;  // empty: list the change points
  std::string frontend, executor;
  HistoryFormat format = HistoryFormat::Text;
};
int history(const HistoryArgs& a, std::ostream& out, std::ostream& err);

// docs/nvfuser-history.md.
std::string historyMarkdown();

}  // namespace fc::driver
