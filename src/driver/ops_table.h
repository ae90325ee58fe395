// `fusecheck ops`: the ops fusecheck models, from src/ir/ops.def and the op
// rules, with their names in nvFuser's printed IR, Python frontend and C++
// API. docs/ops.md is this table (a test keeps the two equal).
#pragma once

#include <iosfwd>
#include <string>

namespace fc::driver {

// The table as Markdown: the page docs/ops.md.
std::string opTableMarkdown();

struct OpsArgs {
  bool markdown = false;  // the docs page instead of one line per op
};
int ops(const OpsArgs& a, std::ostream& out);

}  // namespace fc::driver
