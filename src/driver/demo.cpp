#include <filesystem>
#include <ostream>
#include <sstream>

#include "driver/analysis_commands.h"
#include "driver/basic.h"
#include "driver/run_cmd.h"
#include "driver/seed_data.h"
#include "support/atomic_file.h"

namespace fc::driver {

int demo(const DemoArgs& a, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = a.workdir.empty() ? fs::temp_directory_path(ec) / "fusecheck-demo" : fs::path(a.workdir);
  fs::create_directories(dir, ec);
  std::string seed = a.seed_file;
  if (seed.empty()) {
    seed = (dir / "matmul_allreduce_bias.json").string();
    std::string why = writeFileAtomic(seed, builtinSeedRepro());
    if (!why.empty()) {
      err << "fusecheck demo: " << why << "\n";
      return kExitEnvironment;
    }
  }
  std::string fixed = (dir / "matmul_allreduce_bias.fixed.json").string();
  bool ok = true;
  auto step = [&](const std::string& title) { out << "\n### " << title << "\n\n"; };
  // The arguments of a command on `file` under nvFuser 2024-06.
  auto at2024 = [](auto args, const std::string& file) {
    args.file = file;
    args.flags.nvfuser = "2024-06";
    return args;
  };

  out << "fusecheck demo: nvFuser issue #2481 (matmul -> allreduce -> bias add), fixed by PR #2487\n";
  out << "repro: " << seed << "\n";

  step("1. The fusion, as nvFuser 2024 printed it");
  PrintArgs pa;
  pa.file = seed;
  ok &= print(pa, out, err) == kExitClean;

  step("2. Which nvFuser points fail on the test's path?  fusecheck check --matrix");
  CheckArgs ma;
  ma.file = seed;
  ma.matrix = true;
  ok &= check(ma, out, err) == kExitFindings;

  step("3. Why 2024-06 fails: fusecheck check --nvfuser=2024-06");
  // The seed comes from a C++ test that runs the MultiDeviceExecutor with a
  // FusionExecutorCache per segment (its origin says so).
  std::ostringstream diag;
  ok &= check(at2024(CheckArgs{}, seed), diag, err) == kExitFindings;
  ok &= diag.str().find("FC0301") != std::string::npos && diag.str().find("extent i0") != std::string::npos;
  out << diag.str();

  step("4. Repair: fusecheck fix -o " + fixed);
  FixArgs fa = at2024(FixArgs{}, seed);
  fa.output = fixed;
  ok &= fix(fa, out, err) == kExitClean;

  step("5. Re-check the repaired repro under 2024-06");
  ok &= check(at2024(CheckArgs{}, fixed), out, err) == kExitClean;

  step("6. Does the repaired program compute the right thing?  fusecheck run --fix (CPU, 2 simulated ranks)");
  RunArgs ua = at2024(RunArgs{}, seed);
  std::ostringstream unfixed;
  ok &= run(ua, unfixed, err) == kExitFindings;  // the original fails where nvFuser 2024-06 fails
  ok &= unfixed.str().find("FC0301") != std::string::npos;
  out << "without --fix: the run stops at segment 2 with FC0301, as check says\n";
  ua.fix = true;
  ok &= run(ua, out, err) == kExitClean;

  out << "\n"
      << (ok ? "demo: the story went as expected (2024-06 fails on i0; the fix makes it clean and "
               "numerically right)"
             : "demo: UNEXPECTED: a step did not go as the story says (see above)")
      << "\n";
  return ok ? kExitClean : kExitFindings;
}

}  // namespace fc::driver
