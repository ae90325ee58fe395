// fusecheck CLI entry point. See command.h for how subcommands register.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>

#ifdef FC_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

#include "command.h"
#include "support/internal_error.h"
#include "support/keep_until_exit.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc::cli {

std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

void addFormatOption(CLI::App* sub, driver::OutputFormat& fmt, bool allow_sarif) {
  std::map<std::string, driver::OutputFormat> m{{"text", driver::OutputFormat::Text},
                                                {"json", driver::OutputFormat::Json}};
  if (allow_sarif) m.emplace("sarif", driver::OutputFormat::Sarif);
  sub->add_option("--format", fmt, "Output format")
      ->transform(CLI::CheckedTransformer(m, CLI::ignore_case))
      ->default_str("text");
}

void addPipelineOptions(CLI::App* sub, driver::PipelineFlags& flags) {
  sub->add_option("--nvfuser", flags.era,
                  "nvFuser era to replay: 2024-06, 2024-07 or head (default: the repro's era, else 2024-06)")
      ->check(CLI::IsMember({"2024-06", "2024-07", "head"}));
  sub->add_option("--bind", flags.binds, "Bind a symbol to a value, S=V (repeatable)");
  sub->add_option("--policy", flags.policy, "Tolerance policy for numerics (see docs/numerics.md)");
  sub->add_flag("--trace", flags.trace, "Print each pass's state");
  sub->add_option("--print-after", flags.print_after, "Print the state after PASS (or 'all')");
  sub->add_option("--dump-dir", flags.dump_dir, "Write each pass's state into DIR");
}

void addMaxBytesOption(CLI::App* sub, uint64_t& max_bytes) {
  sub->add_option("--max-bytes", max_bytes, "Refuse inputs (and allocations) larger than N bytes");
}

void addTimeReportOption(CLI::App* sub, bool& on) {
  sub->add_flag("--time-report", on, "Print the wall time and peak RSS of each phase on stderr");
}

int timed(bool on, const std::function<int()>& command) {
  if (!on) return command();
  PhaseTimes times;
  PhaseTimes* prev = PhaseTimes::activate(&times);
  auto start = std::chrono::steady_clock::now();
  int rc = command();
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PhaseTimes::activate(prev);
  std::cout.flush();
  std::cerr << times.render(total);
  return rc;
}

}  // namespace fc::cli

int main(int argc, char** argv) {
#ifdef FC_HAVE_MIMALLOC
  // 2 MiB pages for the heap (transparent huge pages where the kernel allows):
  // a million-expr IR then costs ~500x fewer page faults and far fewer TLB
  // misses. The environment (MIMALLOC_LARGE_OS_PAGES=0) still decides.
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_enable(mi_option_large_os_pages);
#endif
  fc::setKeepUntilExit(true);  // the process ends after one command: skip freeing its IR
  CLI::App app{"fusecheck: replay, diagnose and repair nvFuser-style fusions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fusecheck 0.1.0");
  app.add_option_function<unsigned>(
         "--threads", [](unsigned n) { fc::setDefaultThreads(n); },
         "Threads for reading, verifying and analyzing large repros (0: every core, the default; 1: one). "
         "Give it "
         "before the command; results never depend on it")
      ->check(CLI::Range(0u, fc::kMaxThreads));
  auto& reg = fc::cli::registry();
  std::sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  int exit_code = 0;
  for (auto& c : reg) c.setup(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : fc::driver::kExitBadInput;
  } catch (const fc::InternalError& e) {
    std::cerr << "fusecheck: internal error (a bug in fusecheck, please report it): " << e.what() << "\n";
    return fc::driver::kExitInternal;
  } catch (const std::bad_alloc&) {
    std::cerr << "fusecheck: out of memory\n";
    return fc::driver::kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << "fusecheck: internal error (a bug in fusecheck, please report it): " << e.what() << "\n";
    return fc::driver::kExitInternal;
  }
  return exit_code;
}
