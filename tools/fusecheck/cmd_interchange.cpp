// import, export.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/interchange.h"

namespace fc::cli {
namespace {

Register import_cmd("import", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ImportArgs>();
  auto* sub = app.add_subcommand(
      "import",
      "Import an nvFuser Python repro, printed IR, a segmented-fusion dump, a C++ test or a "
      "GitHub paste");
  sub->add_option("file", a->file, "The nvFuser text (- reads stdin)")->required();
  sub->add_option("-o,--output", a->output, "Repro JSON to write (default: stdout)");
  choices(sub->add_option("--from", a->from, "The text's form (default: detected)"),
          {"nvfuser-python", "nvfuser-ir", "nvfuser-segments", "nvfuser-cpp-test", "paste"}, "FORM");
  sub->add_option(
      "--dump", a->dump,
      "Printed IR with several dumps: N, first, last, before-concretization, after-concretization or "
      "all (default: the first symbolic dump)");
  sub->add_flag("--list", a->list, "List the dumps of a printed-IR log and exit");
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format,
                      [&](std::ostream& o, std::ostream& e) { return driver::importRepro(*a, o, e); });
  });
});

Register export_cmd("export", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ExportArgs>();
  auto* sub = app.add_subcommand("export", "Export a repro as nvFuser's Python layout or a C++ GoogleTest");
  sub->add_option("file", a->file, "Repro: JSON or an nvFuser repro (- reads stdin)")->required();
  choices(sub->add_option("--to", a->to, "The form to write"), {"nvfuser-python", "nvfuser-cpp-test"}, "FORM")
      ->default_str("nvfuser-python");
  sub->add_option("-o,--output", a->output, "File to write (default: stdout)");
  addFormatOption(sub, a->format);
  addInputOptions(sub, a->max_bytes);
  sub->callback([a, &rc] {
    rc = runFormatted(a->format,
                      [&](std::ostream& o, std::ostream& e) { return driver::exportRepro(*a, o, e); });
  });
});

}  // namespace
}  // namespace fc::cli
