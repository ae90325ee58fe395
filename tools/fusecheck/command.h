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

// Adds --format text|json[|sarif] to a subcommand.
void addFormatOption(CLI::App* sub, driver::OutputFormat& fmt, bool allow_sarif = false);
// Adds --nvfuser ERA, --bind S=V (repeatable), --policy P, --trace.
void addPipelineOptions(CLI::App* sub, driver::PipelineFlags& flags);
// Adds --max-bytes N.
void addMaxBytesOption(CLI::App* sub, uint64_t& max_bytes);
// Adds --time-report; timed() runs the command, then prints the phase table
// (support/phase_times.h) on stderr when it is set.
void addTimeReportOption(CLI::App* sub, bool& on);
int timed(bool on, const std::function<int()>& command);

}  // namespace fc::cli
