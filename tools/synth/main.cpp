// fusecheck-synth: writes synthetic repros for performance work (see
// synth.h). Exit 0 written, 2 usage, 3 the file could not be written.
#include <CLI/CLI.hpp>
#include <iostream>

#include "io/writer.h"
#include "support/atomic_file.h"
#include "synth.h"

int main(int argc, char** argv) {
  CLI::App app{
      "fusecheck-synth: write synthetic fusecheck repros (transformer-like blocks, public worst cases)"};
  uint64_t exprs = 1000, seed = 0;
  bool sharded = false;
  std::string shape = "transformer", out;
  uint32_t count = 0;
  app.add_option("--exprs", exprs, "About how many exprs (transformer shape)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--seed", seed, "Seed of the block variants and sizes");
  app.add_flag("--sharded", sharded, "Tensor-parallel blocks on a 2-device mesh (Allreduce / ReduceScatter)");
  app.add_option("--shape", shape, "transformer | linear-relu (#3510) | adds (#1440)")
      ->check(CLI::IsMember({"transformer", "linear-relu", "adds"}));
  app.add_option("--count", count, "Layers (linear-relu, default 30) or additions (adds, default 100)")
      ->check(CLI::Range(1u, 10000000u));
  app.add_option("-o,--output", out, "Output file")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  fc::Fusion f;
  if (shape == "linear-relu")
    f = fc::synth::linearRelu(count ? count : 30);
  else if (shape == "adds")
    f = fc::synth::chainedAdds(count ? count : 100);
  else
    f = fc::synth::transformer({exprs, seed, sharded});
  std::string err = fc::writeFileAtomic(out, fc::writeFusion(f));
  if (!err.empty()) {
    std::cerr << "fusecheck-synth: " << err << "\n";
    return 3;
  }
  return 0;
}
