// dot, report.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/viz_commands.h"

namespace fc::cli {
namespace {

Register dot_cmd("dot", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::DotArgs>();
  auto* sub =
      app.add_subcommand("dot", "Draw the fusion as Graphviz DOT: segments, unbound axes, provenance");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "Where to write the DOT text (default: stdout)");
  sub->add_option("--svg", a->svg, "Also lay out and render SVG here (Graphviz gvc)");
  choices(sub->add_option("--stage", a->stage, "Draw the state after this pass"),
          std::vector<std::string>(std::begin(kPassNames), std::end(kPassNames)), "PASS");
  sub->add_option("--focus", a->focus, "Keep only the neighbourhood of this tensor (T5) or expr (e2)");
  sub->add_option("--depth", a->depth, "With --focus: how many edges away to keep")->default_str("2");
  addProfileOptions(sub, a->flags);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::dot(*a, std::cout, std::cerr); });
});

Register report_cmd("report", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "Write a self-contained HTML report: steps with diffs, the fix, the graph, diagnostics");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "The HTML file to write")->required();
  auto* run =
      sub->add_flag("--run", a->run,
                    "Execute the repro here and include the numerics table (a small fusion runs on the "
                    "CPU without it)");
  sub->add_flag("--no-run", a->no_run, "Leave the numerics out, however small the fusion")->excludes(run);
  choices(sub->add_option("--device", a->device, "With --run: where to execute"), {"cpu", "cuda"}, "DEVICE")
      ->default_str("cpu");
  sub->add_option("--results", a->results, "Include the numerics of a `fusecheck run --format json` file")
      ->excludes(run);
  addProfileOptions(sub, a->flags);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::report(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
