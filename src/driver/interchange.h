// import (nvFuser Python repros, printed IR, segmented-fusion dumps -> our
// JSON) and export (our JSON -> nvFuser's Python layout or a C++ test).
#pragma once

#include <iosfwd>
#include <string>

#include "driver/common.h"
#include "driver/repro_args.h"

namespace fc::driver {

struct ImportArgs : ReproArgs {
  std::string output;  // "-" or empty: stdout
  std::string from;    // empty: detect
  std::string dump;    // printed IR: which dump of a log (IrImportOptions::dump)
  bool list = false;   // list the dumps of a printed-IR text instead of importing
};
int importRepro(const ImportArgs& a, std::ostream& out, std::ostream& err);

struct ExportArgs : ReproArgs {
  std::string output;
  std::string to = "nvfuser-python";  // or nvfuser-cpp-test
};
int exportRepro(const ExportArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
