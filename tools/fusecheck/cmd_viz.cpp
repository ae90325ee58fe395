// dot, report.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/viz_commands.h"

namespace fc::cli {
namespace {

void addEraAndBinds(CLI::App* sub, driver::PipelineFlags& flags) {
  sub->add_option("--nvfuser", flags.era,
                  "nvFuser era to replay: 2024-06, 2024-07 or head (default: the repro's era, else 2024-06)")
      ->check(CLI::IsMember({"2024-06", "2024-07", "head"}));
  sub->add_option("--bind", flags.binds, "Bind a symbol to a value, S=V (repeatable)");
}

Register dot_cmd("dot", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::DotArgs>();
  auto* sub =
      app.add_subcommand("dot", "Draw the fusion as Graphviz DOT: segments, unbound axes, provenance");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("-o,--output", a->output, "Where to write the DOT text (default: stdout)");
  sub->add_option("--svg", a->svg, "Also lay out and render SVG here (Graphviz gvc)");
  sub->add_option("--stage", a->stage,
                  "Draw the state after this pass: bind, concretize, apply, segment or segment-inputs");
  sub->add_option("--focus", a->focus, "Keep only the neighbourhood of this tensor (T5) or expr (e2)");
  sub->add_option("--depth", a->depth, "With --focus: how many edges away to keep")->default_str("2");
  addEraAndBinds(sub, a->flags);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::dot(*a, std::cout, std::cerr); });
});

Register report_cmd("report", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "Write a self-contained HTML report: steps with diffs, the fix, the graph, diagnostics");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("-o,--output", a->output, "The HTML file to write")->required();
  auto* run = sub->add_flag("--run", a->run, "Execute the repro here and include the numerics table");
  sub->add_option("--device", a->device, "With --run: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->default_str("cpu");
  sub->add_option("--results", a->results, "Include the numerics of a `fusecheck run --format json` file")
      ->excludes(run);
  addEraAndBinds(sub, a->flags);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::report(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
