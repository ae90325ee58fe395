// reduce.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/reduce_cmd.h"

namespace fc::cli {
namespace {

Register reduce_cmd("reduce", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ReduceArgs>();
  auto* sub = app.add_subcommand(
      "reduce", "Minimize a repro while a property holds (--until CODE | --oracle CMD | --mismatch)");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "Where the best result so far is kept")->required();
  auto* until = sub->add_option("--until", a->until, "Keep this diagnostic code reported (e.g. FC0301)");
  auto* oracle =
      sub->add_option("--oracle", a->oracle,
                      "Keep this shell command exiting 0 on the candidate ({} = its path, else appended)");
  auto* mismatch = sub->add_flag("--mismatch", a->mismatch,
                                 "Keep a numerics mismatch between segmented run and reference");
  until->excludes(oracle)->excludes(mismatch);
  oracle->excludes(mismatch);
  sub->add_option("--match", a->match,
                  "--until: the diagnostic's message or a note must contain TEXT (e.g. 'extent i0')");
  sub->add_option("--max-steps", a->max_steps, "Stop after N candidates (0: no limit)");
  sub->add_option("--time-limit", a->time_limit_s, "Stop after S seconds (0: no limit)");
  sub->add_option("--oracle-repeats", a->oracle_repeats,
                  "Runs of the oracle on the input (and on the result) that must all exit 0")
      ->default_str("2");
  sub->add_option("--oracle-timeout", a->oracle_timeout_s,
                  "Kill an oracle run after S seconds (not interesting)");
  choices(sub->add_option("--reference", a->reference,
                          "--mismatch: exact (fp64) or faithful (rounded to each dtype)"),
          {"exact", "faithful"}, "REFERENCE")
      ->default_str("exact");
  sub->add_option("--seed", a->seed, "--mismatch: seed of the input generator");
  sub->add_option("--rtol", a->rtol, "--mismatch: relative tolerance (with --atol)");
  sub->add_option("--atol", a->atol, "--mismatch: absolute tolerance (with --rtol)");
  sub->add_flag("--no-shrink-sizes", a->no_shrink_sizes, "Keep concrete input sizes");
  sub->add_flag("--no-shrink-meshes", a->no_shrink_meshes, "Keep every mesh device");
  sub->add_flag("-v,--verbose", a->verbose, "Log every candidate (and show the oracle's output)");
  choices(sub->add_option("--progress", a->progress,
                          "The progress line: auto (when stderr is a terminal), always or never"),
          {"auto", "always", "never"}, "WHEN")
      ->default_str("auto");
  sub->add_option("--export-python", a->export_python, "Also write the result in nvFuser's Python layout");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format,
                      [&](std::ostream& o, std::ostream& e) { return driver::reduceRepro(*a, o, e); });
  });
});

}  // namespace
}  // namespace fc::cli
