// The foundation commands: validate (load + verify), print (nvFuser-style
// math), convert (load + save in canonical form).
#pragma once

#include <iosfwd>
#include <string>

#include "driver/common.h"
#include "driver/repro_args.h"
#include "ir/printer.h"

namespace fc::driver {

struct ValidateArgs : ReproArgs {};
int validate(const ValidateArgs& a, std::ostream& out, std::ostream& err);

struct PrintArgs : ReproArgs {
  PrintStyle style = PrintStyle::Y2024;
};
int print(const PrintArgs& a, std::ostream& out, std::ostream& err);

struct ConvertArgs : ReproArgs {
  std::string output;  // "-" or empty: stdout
  bool in_place = false;
};
int convert(const ConvertArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
