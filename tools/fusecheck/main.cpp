// fusecheck CLI: parses the command line (CLI11) and calls the driver
// library. Nothing but argument handling lives here.
#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"fusecheck: replay, diagnose and repair nvFuser-style fusions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fusecheck 0.1.0");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return 0;
}
