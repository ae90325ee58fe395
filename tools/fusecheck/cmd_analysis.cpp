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
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  auto matrix = std::make_shared<std::string>();
  // A flag with an optional value (`--matrix`, `--matrix=all`): it never
  // takes the next argument, which is the repro.
  sub->add_flag("--matrix{path}", *matrix,
                "Walk nvFuser's change points on the repro's path and report where it fails and which change "
                "flips it; --matrix=all: every frontend x executor that existed")
      ->check(CLI::IsMember({"all", "path"}));
  sub->add_option("--expect-fixed-by", a->expect_fixed_by,
                  "With --matrix: exit 0 only if the findings end with this nvFuser PR's merge (a CI check)");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, matrix, sub, &rc] {
    a->matrix = sub->count("--matrix") > 0 || a->expect_fixed_by > 0;
    a->matrix_all = *matrix == "all";
    rc = timed(
        *time_report,
        [&] {
          return runFormatted(a->format,
                              [&](std::ostream& o, std::ostream& e) { return driver::check(*a, o, e); });
        },
        "check", a->file);
  });
});

Register segment_cmd("segment", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::SegmentArgs>();
  auto* sub = app.add_subcommand("segment", "Show the segments nvFuser forms on the replayed path");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_flag("--ranks", a->ranks, "Show which rank runs which segment, with local shapes");
  sub->add_option("--emit-segments", a->emit_dir, "Write each segment as a standalone repro into DIR");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  auto time_report = std::make_shared<bool>(false);
  addTimeReportOption(sub, *time_report);
  sub->callback([a, time_report, &rc] {
    rc = timed(
        *time_report,
        [&] {
          return runFormatted(a->format,
                              [&](std::ostream& o, std::ostream& e) { return driver::segment(*a, o, e); });
        },
        "segment", a->file);
  });
});

Register concretize_cmd("concretize", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ConcretizeArgs>();
  auto* sub = app.add_subcommand("concretize", "Show binding and concretization, per segment");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("--segment", a->segment, "Only this segment");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format,
                      [&](std::ostream& o, std::ostream& e) { return driver::concretize(*a, o, e); });
  });
});

Register explain_cmd("explain", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ExplainArgs>();
  auto* sub = app.add_subcommand(
      "explain", "Explain a symbol, tensor, axis or expr of a repro, or map an nvFuser error to codes");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)");
  sub->add_option("name", a->symbol, "A symbol (i0), tensor (T5), axis (rS14) or expr (e3)");
  sub->add_option("--error", a->error_text, "A pasted nvFuser error message");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc, sub] {
    if (a->error_text.empty() && (a->file.empty() || a->symbol.empty()))
      throw CLI::ValidationError("explain", "give FILE NAME, or --error TEXT");
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::explain(*a, o, e); });
    (void)sub;
  });
});

Register fix_cmd("fix", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::FixArgs>();
  auto* sub =
      app.add_subcommand("fix", "Apply fixes (recorded as segmentation + edge handling) and re-check");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "Where to write the repaired repro");
  sub->add_flag("--in-place", a->in_place, "Overwrite the input");
  choices(sub->add_option("--fix", a->fix, "Which fix to apply"),
          {"auto", "strip-reduction-axes", "forward-extent"}, "FIX")
      ->default_str("auto");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::fix(*a, o, e); });
  });
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
