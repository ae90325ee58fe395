// The option helpers every subcommand shares (command.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "command.h"
#include "diag/render.h"
#include "pipeline/pipeline.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/progress.h"
#include "support/suggest.h"
#include "support/version.h"

namespace fc::cli {

namespace {

std::string lowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string wordList(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i)
    s += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return s;
}

}  // namespace

CLI::Option* choicesMapped(CLI::Option* opt, const std::vector<std::string>& words,
                           const std::vector<std::string>& stored, const std::string& type) {
  std::string desc = "{";
  for (size_t i = 0; i < words.size(); ++i) desc += (i ? "," : "") + words[i];
  desc += "}";
  CLI::Validator v(
      [words, stored](std::string& value) -> std::string {
        std::string low = lowerAscii(value);
        for (size_t i = 0; i < words.size(); ++i)
          if (lowerAscii(words[i]) == low) {
            value = stored[i];
            return "";
          }
        return "'" + value + "' is not one of: " + wordList(words) + didYouMean(value, words);
      },
      desc, "choices");
  if (!type.empty()) opt->type_name(type);
  return opt->transform(v);
}

CLI::Option* choices(CLI::Option* opt, const std::vector<std::string>& words, const std::string& type) {
  return choicesMapped(opt, words, words, type);
}

const std::vector<std::string>& eraNames() {
  static const std::vector<std::string> names{"2024-06", "2024-07", "head"};
  return names;
}

void addFormatOption(CLI::App* sub, driver::OutputFormat& fmt, bool diagnostics) {
  std::vector<std::pair<std::string, driver::OutputFormat>> m{{"text", driver::OutputFormat::Text},
                                                              {"json", driver::OutputFormat::Json}};
  if (diagnostics) {
    m.emplace_back("sarif", driver::OutputFormat::Sarif);
    m.emplace_back("github", driver::OutputFormat::Github);
  }
  enumChoices(
      sub->add_option("--format", fmt,
                      diagnostics ? "Output format (sarif: the diagnostics as SARIF 2.1.0; github: as GitHub "
                                    "Actions annotations)"
                                  : "Output format"),
      m, "FORMAT")
      ->default_str("text");
}

int runFormatted(driver::OutputFormat& fmt, const std::function<int(std::ostream&, std::ostream&)>& command) {
  if (fmt != driver::OutputFormat::Sarif && fmt != driver::OutputFormat::Github)
    return command(std::cout, std::cerr);
  const driver::OutputFormat want = fmt;
  fmt = driver::OutputFormat::Json;
  std::ostringstream out, err;
  int rc = command(out, err);
  fmt = want;
  // The JSON document is on stdout, or on stderr when stdout carries a product (export, convert without -o).
  std::vector<Diagnostic> diags;
  std::string o = out.str(), e = err.str();
  if (auto d = diagnosticsFromJson(o)) {
    diags = std::move(*d);
    std::cerr << e;
  } else {
    std::cout << o;
    if (auto d2 = diagnosticsFromJson(e))
      diags = std::move(*d2);
    else
      std::cerr << e;
  }
  if (want == driver::OutputFormat::Sarif)
    std::cout << renderSarif(diags, std::string(buildVersion()));
  else
    std::cout << renderGithub(diags);
  std::cout.flush();
  return rc;
}

void addProfileOptions(CLI::App* sub, driver::PipelineFlags& flags) {
  sub->add_option(
      "--nvfuser", flags.nvfuser,
      "nvFuser point to replay: a date (2024-06-30), a commit of main, a version (0.2.14+git7f0bd0d), "
      "head, or 2024-06 / 2024-07 (default: the repro's, else head; `fusecheck history`)");
  choices(sub->add_option("--frontend", flags.frontend,
                          "How the fusion was built: python (nvfuser), direct (nvfuser_direct) or cpp "
                          "(default: the repro's origin, else assumed and said)"),
          {"python", "direct", "cpp"}, "FRONTEND");
  choices(
      sub->add_option("--executor", flags.executor,
                      "What ran it: fec (FusionExecutorCache), mde (MultiDeviceExecutor), mde-fec (with "
                      "FusionExecutorCache per segment) or hostir (default: the frontend's at that point)"),
      {"fec", "mde", "mde-fec", "hostir"}, "EXECUTOR");
  sub->add_option("--bind", flags.binds, "Bind a symbol to a value, S=V (repeatable)")
      ->allow_extra_args(false);
}

void addPipelineOptions(CLI::App* sub, driver::PipelineFlags& flags) {
  addProfileOptions(sub, flags);
  choices(sub->add_option("--policy", flags.policy,
                          "Tolerance policy for numerics: magnitude-aware is the one a run applies "
                          "(--rtol/--atol replace it; docs/numerics.md)"),
          {"magnitude-aware"}, "POLICY");
  sub->add_flag("--trace", flags.trace, "Print each pass's state");
  std::vector<std::string> passes(std::begin(kPassNames), std::end(kPassNames));
  passes.push_back("all");
  choices(sub->add_option("--print-after", flags.print_after, "Print the state after this pass (or all)"),
          passes, "PASS");
  sub->add_option("--dump-dir", flags.dump_dir, "Write each pass's state into DIR");
}

void addMaxBytesOption(CLI::App* sub, uint64_t& max_bytes) {
  sub->add_option("--max-bytes", max_bytes, "Refuse inputs (and allocations) larger than N bytes");
}

void addInputOptions(CLI::App* sub, uint64_t& max_bytes) {
  addMaxBytesOption(sub, max_bytes);
  choices(sub->add_option_function<std::string>(
              "--from", [](const std::string& name) { driver::forceReproFormat(name); },
              "Read the repro as fusecheck (JSON), nvfuser-python, nvfuser-ir, nvfuser-segments, "
              "nvfuser-cpp-test or "
              "paste (default: by content)"),
          {"fusecheck", "nvfuser-python", "nvfuser-ir", "nvfuser-segments", "nvfuser-cpp-test", "paste"},
          "FORMAT");
}

void addTimeReportOption(CLI::App* sub, bool& on) {
  sub->add_flag("--time-report", on, "Print the wall time and peak RSS of each phase on stderr");
}

int timed(bool on, const std::function<int()>& command, const std::string& progress_what,
          const std::string& file) {
  // A large input on a terminal gets a progress line: the phase it is in and
  // an estimate from the file's size (about 40 MB/s of repro per thread).
  std::error_code ec;
  uint64_t bytes = file.empty() ? 0 : std::filesystem::file_size(file, ec);
  const bool progress = !progress_what.empty() && !ec && bytes >= kProgressBytes && progressEnabled();
  if (!on && !progress) return command();
  PhaseTimes times;
  times.trackCurrent(progress);
  PhaseTimes* prev = PhaseTimes::activate(&times);
  auto start = std::chrono::steady_clock::now();
  int rc = 0;
  {
    std::optional<ProgressTicker> ticker;
    if (progress) {
      double expected = static_cast<double>(bytes) / (40e6 * std::max(1u, std::min(defaultThreads(), 16u)));
      char size[32];
      std::snprintf(size, sizeof size, "%.0f MB", static_cast<double>(bytes) / 1e6);
      ticker.emplace(
          progress_what, [&times, size = std::string(size)] { return size + " · " + times.current(); },
          expected);
    }
    rc = command();
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PhaseTimes::activate(prev);
  std::cout.flush();
  if (on) std::cerr << times.render(total);
  return rc;
}

}  // namespace fc::cli
