// The foundation commands: validate (load + verify), print (nvFuser-style
// math), convert (load + save in canonical form).
#pragma once

#include <iosfwd>
#include <string>

#include "driver/common.h"
#include "ir/printer.h"

namespace fc::driver {

struct ValidateArgs {
  std::string file;
  OutputFormat format = OutputFormat::Text;
  uint64_t max_bytes = 0;
};
int validate(const ValidateArgs& a, std::ostream& out, std::ostream& err);

struct PrintArgs {
  std::string file;
  PrintStyle style = PrintStyle::Y2024;
  OutputFormat format = OutputFormat::Text;
  uint64_t max_bytes = 0;
};
int print(const PrintArgs& a, std::ostream& out, std::ostream& err);

struct ConvertArgs {
  std::string file;
  std::string output;  // "-" or empty: stdout
  bool in_place = false;
  OutputFormat format = OutputFormat::Text;
  uint64_t max_bytes = 0;
};
int convert(const ConvertArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
