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
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, &rc] {
    rc = timed(
        *time_report,
        [&] {
          return runFormatted(a->format,
                              [&](std::ostream& o, std::ostream& e) { return driver::validate(*a, o, e); });
        },
        "validate", a->file);
  });
});

Register print_cmd("print", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::PrintArgs>();
  auto* sub = app.add_subcommand("print", "Print the fusion as nvFuser prints it");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  enumChoices(sub->add_option("--style", a->style, "Print format"),
              std::vector<std::pair<std::string, PrintStyle>>{{"2024", PrintStyle::Y2024},
                                                              {"head", PrintStyle::Head}},
              "STYLE")
      ->default_str("2024");
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::print(*a, o, e); });
  });
});

Register convert_cmd("convert", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ConvertArgs>();
  auto* sub = app.add_subcommand("convert", "Load and save a repro in canonical form");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "Output file (default: stdout)");
  sub->add_flag("--in-place", a->in_place, "Overwrite the input");
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::convert(*a, o, e); });
  });
});

Register ops_cmd("ops", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::OpsArgs>();
  auto* sub = app.add_subcommand("ops", "List the ops fusecheck models and their names in nvFuser");
  sub->add_flag("--markdown", a->markdown, "Print the table of docs/ops.md");
  sub->callback([a, &rc] { rc = driver::ops(*a, std::cout); });
});

}  // namespace
}  // namespace fc::cli
