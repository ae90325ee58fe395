// fuzz.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/fuzz_cmd.h"

namespace fc::cli {
namespace {

Register fuzz_cmd("fuzz", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::FuzzArgs>();
  auto* sub =
      app.add_subcommand("fuzz", "Generate random fusions and check them differentially (docs/fuzz.md)");
  sub->add_option("--seed", a->seed, "First seed: fusion i uses seed S+i")->default_str("0");
  sub->add_option("--count", a->count, "How many fusions")->default_str("100");
  sub->add_option("--era", a->eras, "Eras to check (repeatable; default: 2024-06, 2024-07, head)")
      ->check(CLI::IsMember({"2024-06", "2024-07", "head"}));
  sub->add_option("--out", a->out, "Write each unexplained finding as a repro into DIR");
  sub->add_option("--max-exprs", a->max_exprs, "Ops per fusion (about)")
      ->check(CLI::Range(1u, 10000u))
      ->default_str("12");
  sub->add_flag("--minimize", a->minimize, "Shrink findings with the reducer (src/reduce) before writing");
  sub->add_flag("--progress", a->progress, "Print a progress line every 1000 fusions on stderr");
  addFormatOption(sub, a->format);
  sub->callback([a, &rc] { rc = driver::fuzz(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
