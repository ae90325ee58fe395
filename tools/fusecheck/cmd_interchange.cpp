// import, export.
#include <iostream>
#include <memory>

#include "command.h"
#include "driver/interchange.h"

namespace fc::cli {
namespace {

Register import_cmd("import", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ImportArgs>();
  auto* sub =
      app.add_subcommand("import", "Import an nvFuser Python repro, printed IR or segmented-fusion dump");
  sub->add_option("file", a->file, "The nvFuser text")->required();
  sub->add_option("-o,--output", a->output, "Repro JSON to write (default: stdout)");
  sub->add_option("--from", a->from, "nvfuser-python, nvfuser-ir or nvfuser-segments (default: detect)");
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::importRepro(*a, std::cout, std::cerr); });
});

Register export_cmd("export", [](CLI::App& app, int& rc) {
  auto a = std::make_shared<driver::ExportArgs>();
  auto* sub = app.add_subcommand("export", "Export a repro as nvFuser's Python layout or a C++ GoogleTest");
  sub->add_option("file", a->file, "Repro JSON")->required();
  sub->add_option("--to", a->to, "nvfuser-python or nvfuser-cpp-test")
      ->check(CLI::IsMember({"nvfuser-python", "nvfuser-cpp-test"}))
      ->default_str("nvfuser-python");
  sub->add_option("-o,--output", a->output, "File to write (default: stdout)");
  addFormatOption(sub, a->format);
  addMaxBytesOption(sub, a->max_bytes);
  sub->callback([a, &rc] { rc = driver::exportRepro(*a, std::cout, std::cerr); });
});

}  // namespace
}  // namespace fc::cli
