// Dating a print by its style. nvFuser changed how tensors print twice after mid-2024 (reference
// §1.5; dates are the merges' UTC commit dates): from #2889 (2024-09-04) the dtype follows the
// memory suffix (`T0_g_float[`), and from #3444 (2024-11-30) the brackets lost their inner
// padding (`[iS0{i0}]`). Prints before #684
// (2023-08-19, csrc/ir/nodes.cpp) name input extents `T0.size[0]`. The importer records
// the range it finds, so that a profile can start from it.
//
// Complexity: linear in the tokens of the dump.
#pragma once

#include <string>

#include "io/ir/lexer.h"

namespace fc::ir_text {

struct PrintEra {
  std::string style;     // "padded, no dtype in names", ...; empty when no tensor is printed
  std::string after;     // the first day the style was printed ("" when unbounded)
  std::string before;    // the day it stopped ("" when it is head's)
  std::string evidence;  // the nvFuser changes the range rests on
  // The same range as commits of nvFuser's main: the first that prints the style, the first
  // that no longer does ("" when unbounded).
  std::string from_commit, before_commit;
};

PrintEra detectPrintEra(const Lexer& lex, size_t begin, size_t end);

// "printed between 2024-09-04 and 2024-11-30 (padded brackets, dtype in names; nvFuser #2889, #3444)"
std::string describePrintEra(const PrintEra& e);

}  // namespace fc::ir_text
