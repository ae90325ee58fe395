// run.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/run_cmd.h"

namespace fc::cli {
namespace {

Register run_cmd("run", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::RunArgs>();
  auto* sub = app.add_subcommand("run", "Execute the segmented program and compare it with the reference");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  sub->add_option("--device", a->device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->default_str("cpu");
  sub->add_flag("--fix", a->fix, "Apply the fixes fusecheck proposes before running");
  sub->add_option("--against", a->against, "Compare with BEFORE's reference (verify a rewrite)");
  sub->add_option("--reference", a->reference, "exact (fp64) or faithful (rounded to each dtype)")
      ->check(CLI::IsMember({"exact", "faithful"}))
      ->default_str("exact");
  sub->add_option("--reference-device", a->reference_device,
                  "Where the reference runs: cpu, or cuda (exact only; the default with --device cuda)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  sub->add_option("--seed", a->seed, "Seed of the input generator");
  sub->add_option("--rtol", a->rtol, "Relative tolerance (with --atol: torch's rule)");
  sub->add_option("--atol", a->atol, "Absolute tolerance (with --rtol)");
  sub->add_option("--ranks", a->ranks,
                  "Run each of N ranks in its own process (one GPU each with --device cuda); "
                  "under torchrun / mpirun, this process is one rank (docs/multigpu.md)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--rank-timeout", a->rank_timeout,
                  "With --ranks: seconds a rank waits for another before the run fails (exit 3)")
      ->check(CLI::PositiveNumber)
      ->default_str("300");
  sub->add_option("--inputs", a->inputs,
                  "Run on these tensors (.safetensors or .npz: global tensors, matched to the inputs by "
                  "name or position) instead of generated ones");
  sub->add_option("--inputs-per-rank", a->inputs_per_rank,
                  "One tensor file per rank (local shards), in rank order (repeatable, or comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_option("--save-inputs", a->save_inputs,
                  "Write the run's inputs (global) to FILE (.safetensors or .npz)");
  sub->add_option("--save-outputs", a->save_outputs,
                  "Write the outputs the segmented program computed (global) to FILE (.safetensors or .npz)");
  choices(sub->add_option("--progress", a->progress,
                          "The progress line (the phase, then the segment running): auto (when stderr "
                          "is a terminal), always or never"),
          {"auto", "always", "never"}, "WHEN")
      ->default_str("auto");
  addPipelineOptions(sub, a->flags);
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::run(*a, o, e); });
  });
});

}  // namespace
}  // namespace fc::cli
