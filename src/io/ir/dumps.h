// The dumps in a log or paste of printed IR: nvFuser prints a fusion several times (before and
// after concretization, the original and the segmenter's re-written copy, one host program per
// rank), and users paste whole logs. A dump starts at a header line naming a fusion
// (`Fusion before concretization:`), at an `Inputs:` list or a `%kernel {` block once the current
// dump has closed its block, or at a `%HostIrContainer {` (whose `%kernel` blocks belong to it).
//
// Complexity: one pass over the tokens.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/ir/lexer.h"

namespace fc::ir_text {

struct Dump {
  size_t begin = 0, end = 0;  // tokens [begin, end)
  std::string label;          // the header line, "" when none
  enum class Kind : uint8_t { Symbolic, Concretized, HostProgram, Segments };
  Kind kind = Kind::Symbolic;
  size_t tensors = 0;  // distinct tensor names printed
};

std::vector<Dump> findDumps(const Lexer& lex);

std::string_view dumpKindName(Dump::Kind k);  // "symbolic", "concretized", "host program", "segments"

// `which`: "" (the default: the first symbolic dump), a 1-based number, "first", "last",
// "before-concretization", "after-concretization", "all". On failure returns nullopt and sets
// `why`; "all" returns dumps.size().
std::optional<size_t> pickDump(const std::vector<Dump>& dumps, std::string_view which, std::string& why);

}  // namespace fc::ir_text
