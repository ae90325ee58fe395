// check, segment, concretize, explain, fix, demo.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/analysis_commands.h"

namespace fc::cli {
namespace {

Register check_cmd("check", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::CheckArgs>();
  auto* sub = app.add_subcommand("check", "Replay segmentation and concretization; report unbound extents");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_flag("--matrix", a->matrix, "Run every nvFuser era and tabulate which fail");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format, /*allow_sarif=*/true);
  addMaxBytesOption(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, &rc] {
    rc = timed(*time_report, [&] { return driver::check(*a, std::cout, std::cerr); });
  });
});

Register segment_cmd("segment", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::SegmentArgs>();
  auto* sub = app.add_subcommand("segment", "Show the segments the era's segmenter forms");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_flag("--ranks", a->ranks, "Show which rank runs which segment, with local shapes");
  sub->add_option("--emit-segments", a->emit_dir, "Write each segment as a standalone repro into DIR");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, &rc] {
    rc = timed(*time_report, [&] { return driver::segment(*a, std::cout, std::cerr); });
  });
});

Register concretize_cmd("concretize", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ConcretizeArgs>();
  auto* sub = app.add_subcommand("concretize", "Show binding and concretization, per segment");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("--segment", a->segment, "Only this segment");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::concretize(*a, std::cout, std::cerr); });
});

Register explain_cmd("explain", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ExplainArgs>();
  auto* sub =
      app.add_subcommand("explain", "Explain a symbol's provenance, or map an nvFuser error to codes");
  sub->add_option("file", a->file, "Repro JSON");
  sub->add_option("symbol", a->symbol, "Symbol, e.g. i0");
  sub->add_option("--error", a->error_text, "A pasted nvFuser error message");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc, sub] {
    if (a->error_text.empty() && (a->file.empty() || a->symbol.empty()))
      throw CLI::ValidationError("explain", "give FILE SYMBOL, or --error TEXT");
    rc = driver::explain(*a, std::cout, std::cerr);
    (void)sub;
  });
});

Register fix_cmd("fix", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::FixArgs>();
  auto* sub =
      app.add_subcommand("fix", "Apply fixes (recorded as segmentation + edge handling) and re-check");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("-o,--output", a->output, "Where to write the repaired repro");
  sub->add_flag("--in-place", a->in_place, "Overwrite the input");
  sub->add_option("--fix", a->fix, "auto, strip-reduction-axes or forward-extent")->default_str("auto");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::fix(*a, std::cout, std::cerr); });
});

Register demo_cmd("demo", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::DemoArgs>();
  auto* sub = app.add_subcommand("demo", "Tell the seed story: check -> fix -> re-check (nvFuser #2481)");
  sub->add_option("--workdir", a->workdir, "Where to write the demo's files (default: a temp dir)");
  sub->add_option("--seed-file", a->seed_file, "Use this repro instead of the built-in seed");
  sub->callback([a, &rc] { rc = driver::demo(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
