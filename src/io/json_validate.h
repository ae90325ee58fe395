// A strict, iterative JSON validator used by the reader on its error path
// only: when simdjson (or the reader) reports a problem, this pass finds the
// first JSON-level error, classifies it (syntax FC0002, truncation FC0003,
// nesting FC0004, UTF-8 FC0020) and says where it is, as a byte offset and
// the JSON pointer of the value being read. O(n) time, O(depth) memory, no
// recursion.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "diag/diagnostic.h"

namespace fc {

inline constexpr size_t kMaxJsonDepth = 1024;

struct JsonProblem {
  DiagCode code = DiagCode::JsonSyntax;
  size_t offset = 0;
  std::string pointer;
  std::string message;
};

// nullopt when `text` is one valid JSON value (RFC 8259) nesting at most
// kMaxJsonDepth levels, in valid UTF-8.
std::optional<JsonProblem> validateJson(std::string_view text);

// Offset of the first byte that is not valid UTF-8, or nullopt.
std::optional<size_t> findInvalidUtf8(std::string_view text);

}  // namespace fc
