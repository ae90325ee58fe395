// Subcommand registration for the fusecheck CLI. Each subcommand lives in
// its own cmd_<name>.cpp and registers itself with a static Register; main
// builds the CLI11 app from the registry (sorted by name). The CLI only
// parses arguments and calls the driver library (src/driver/).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "driver/common.h"

namespace fc::cli {

// `setup` adds the subcommand to `app`; its callback stores the exit code.
using Setup = std::function<void(CLI::App& app, int& exit_code)>;

struct Command {
  std::string name;
  Setup setup;
};

std::vector<Command>& registry();

struct Register {
  Register(std::string name, Setup setup) { registry().push_back({std::move(name), std::move(setup)}); }
};

// A closed set of words for an option's value: help shows TYPE:{a,b,c}; a
// value outside the set (compared ignoring case) is refused, exit 2, with
// the valid words and the nearest one.
CLI::Option* choices(CLI::Option* opt, const std::vector<std::string>& words, const std::string& type = "");
// The same, storing stored[i] for words[i].
CLI::Option* choicesMapped(CLI::Option* opt, const std::vector<std::string>& words,
                           const std::vector<std::string>& stored, const std::string& type);
// The same for an enum: each word stores its enumerator.
template <class E>
CLI::Option* enumChoices(CLI::Option* opt, const std::vector<std::pair<std::string, E>>& words,
                         const std::string& type) {
  std::vector<std::string> names, values;
  for (const auto& [w, e] : words) {
    names.push_back(w);
    values.push_back(std::to_string(static_cast<int>(e)));
  }
  return choicesMapped(opt, names, values, type);
}

// The eras --nvfuser takes.
const std::vector<std::string>& eraNames();

// Adds --format text|json|sarif|github to a subcommand (`diagnostics`
// false: text and json only, for commands that report no diagnostics).
void addFormatOption(CLI::App* sub, driver::OutputFormat& fmt, bool diagnostics = true);
// Runs a command in the format asked for: text and json as they are; sarif
// and github run it in json and print the diagnostics its output reports
// as SARIF 2.1.0 or GitHub annotations on stdout (its other output, when it
// is not that JSON, passes through). The exit code is the command's.
int runFormatted(driver::OutputFormat& fmt,
                 const std::function<int(std::ostream& out, std::ostream& err)>& command);
// Adds --nvfuser POINT, --frontend, --executor and --bind S=V (repeatable).
void addProfileOptions(CLI::App* sub, driver::PipelineFlags& flags);
// addProfileOptions, then --policy P, --trace, --print-after, --dump-dir.
void addPipelineOptions(CLI::App* sub, driver::PipelineFlags& flags);
// Adds --max-bytes N.
void addMaxBytesOption(CLI::App* sub, uint64_t& max_bytes);
// The options of every command that loads a repro (driver::loadRepro): --max-bytes N and
// --from FORMAT (read the file as that format instead of detecting it).
void addInputOptions(CLI::App* sub, uint64_t& max_bytes);
// Adds --time-report; timed() runs the command, then prints the phase table
// (support/phase_times.h) on stderr when it is set. With `progress_what`, a
// `file` of kProgressBytes or more gets a progress line on a terminal
// (support/progress.h): the phase the command is in and an estimate.
void addTimeReportOption(CLI::App* sub, bool& on);
inline constexpr uint64_t kProgressBytes = 16u << 20;
int timed(bool on, const std::function<int()>& command, const std::string& progress_what = "",
          const std::string& file = "");

// Generated from the app's definition (generate.cpp): the completion script
// for `shell` (bash or zsh; "" for another), and one man page per
// subcommand plus fusecheck.1, as (file name, roff text).
std::string completionScript(const CLI::App& app, const std::string& shell);
std::vector<std::pair<std::string, std::string>> manPages(const CLI::App& app);

}  // namespace fc::cli
