// fuzz.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/fuzz_cmd.h"

namespace fc::cli {
namespace {

Register fuzz_cmd("fuzz", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::FuzzArgs>();
  auto old_eras = std::make_shared<std::vector<std::string>>();
  auto* sub =
      app.add_subcommand("fuzz", "Generate random fusions and check them differentially (docs/fuzz.md)");
  sub->add_option("--seed", a->seed, "First seed: fusion i uses seed S+i")->default_str("0");
  sub->add_option("--count", a->count, "How many fusions")->default_str("100");
  sub->add_option("--nvfuser", a->eras,
                  "nvFuser points to check (repeatable: a date, commit, version or head; default: 2024-06, "
                  "2024-07, head; --era is its deprecated spelling)");
  // The earlier spelling: still taken, hidden from help, and said to be deprecated when used.
  sub->add_option("--era", *old_eras, "Deprecated: use --nvfuser")->group("");
  sub->add_option("--out", a->out, "Write each unexplained finding as a repro into DIR");
  sub->add_option("--emit", a->emit,
                  "Write the generated fusions (fuzz-<seed>.json) into DIR instead of checking them");
  sub->add_option("--max-exprs", a->max_exprs, "Ops per fusion (about)")
      ->check(CLI::Range(1u, 10000u))
      ->default_str("12");
  sub->add_flag("--minimize", a->minimize, "Shrink findings with the reducer (src/reduce) before writing");
  sub->add_flag(
      "--progress", a->progress,
      "Also print a log line every 1000 fusions on stderr (a terminal shows a progress line anyway)");
  addFormatOption(sub, a->format, /*diagnostics=*/false);
  sub->callback([a, old_eras, &rc] {
    if (!old_eras->empty()) {
      std::cerr << "fusecheck fuzz: --era is deprecated; use --nvfuser (it takes the same values)\n";
      a->eras.insert(a->eras.end(), old_eras->begin(), old_eras->end());
    }
    rc = driver::fuzz(*a, std::cout, std::cerr);
  });
});

}  // namespace
}  // namespace fc::cli
