// test.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/test_cmd.h"

namespace fc::cli {
namespace {

Register test_cmd("test", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::TestArgs>();
  auto* sub = app.add_subcommand(
      "test", "Run repros against the expectations beside them (X.expect.json): repros as regression tests");
  sub->add_option("paths", a->paths,
                  "Folders (searched for *.expect.json), sidecars X.expect.json, or repros X.json / X.py / "
                  "X.txt / X.cpp / X.cc / X.md")
      ->required();
  sub->add_flag("--update", a->update,
                "Rewrite the expectations from what fusecheck does now, keeping what was written by hand "
                "(review the diff)");
  sub->add_option(
         "--new-args", a->new_args,
         "With --update, for a repro without a sidecar: the run to record (default: validate for .json, "
         "import --from nvfuser-python for .py)")
      ->expected(1, -1)
      ->allow_extra_args();
  sub->add_flag("--strict", a->strict,
                "An expectation this fusecheck cannot check fails instead of being skipped");
  sub->add_option("--junit", a->junit, "Also write the results as JUnit XML into FILE");
  sub->add_option("--cli", a->cli, "The fusecheck to test (default: this one)");
  sub->add_option("-j,--jobs", a->jobs, "Sidecars checked at once (default: --threads, every core)");
  addFormatOption(sub, a->format);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format, [&](std::ostream& o, std::ostream& e) { return driver::test(*a, o, e); });
  });
});

}  // namespace
}  // namespace fc::cli
