// validate, print, convert.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/basic.h"
#include "driver/ops_table.h"

namespace fc::cli {
namespace {

Register validate_cmd("validate", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ValidateArgs>();
  auto* sub = app.add_subcommand("validate", "Load and verify a repro");
  sub->add_option("file", a->file, "Repro JSON")->required();
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, &rc] {
    rc = timed(*time_report, [&] { return driver::validate(*a, std::cout, std::cerr); });
  });
});

Register print_cmd("print", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::PrintArgs>();
  auto* sub = app.add_subcommand("print", "Print the fusion as nvFuser prints it");
  sub->add_option("file", a->file, "Repro JSON")->required();
  std::map<std::string, PrintStyle> styles{{"2024", PrintStyle::Y2024}, {"head", PrintStyle::Head}};
  sub->add_option("--style", a->style, "Print format: 2024 or head")
      ->transform(CLI::CheckedTransformer(styles))
      ->default_str("2024");
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::print(*a, std::cout, std::cerr); });
});

Register convert_cmd("convert", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ConvertArgs>();
  auto* sub = app.add_subcommand("convert", "Load and save a repro in canonical form");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("-o,--output", a->output, "Output file (default: stdout)");
  sub->add_flag("--in-place", a->in_place, "Overwrite the input");
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::convert(*a, std::cout, std::cerr); });
});

Register ops_cmd("ops", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::OpsArgs>();
  auto* sub = app.add_subcommand("ops", "List the ops fusecheck models and their names in nvFuser");
  sub->add_flag("--markdown", a->markdown, "Print the table of docs/ops.md");
  sub->callback([a, &rc] { rc = driver::ops(*a, std::cout); });
});

}  // namespace
}  // namespace fc::cli
