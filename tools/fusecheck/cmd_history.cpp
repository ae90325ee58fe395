// history.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/history_cmd.h"

namespace fc::cli {
namespace {

Register history_cmd("history", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::HistoryArgs>();
  auto* sub = app.add_subcommand(
      "history",
      "List the nvFuser change points fusecheck models, or resolve a point (date, commit, version)");
  sub->add_option("point", a->point, "A date (2024-06-30), a commit of main, a version (0.2.6) or head");
  std::map<std::string, driver::HistoryFormat> m{{"text", driver::HistoryFormat::Text},
                                                 {"json", driver::HistoryFormat::Json},
                                                 {"markdown", driver::HistoryFormat::Markdown}};
  sub->add_option("--format", a->format, "Output format")
      ->transform(CLI::CheckedTransformer(m, CLI::ignore_case))
      ->default_str("text");
  sub->callback([a, &rc] { rc = driver::history(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
