// Maps an RFC 6901 JSON pointer back to a byte offset in JSON text, on the
// error path only (the reader keeps no positions for valid files). The scan
// is iterative (no recursion) and linear in the text before the target.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"

namespace fc {

// An RFC 6901 pointer's tokens, unescaped (~0, ~1); false if malformed.
// "" is the document (no token).
bool splitPointer(std::string_view pointer, std::vector<std::string>& tokens);
// A token as an array index: decimal digits without a leading zero.
bool parsePointerIndex(std::string_view token, size_t& index);

// Offset of the first byte of the value at `pointer`, or nullopt when the
// pointer does not resolve (then callers fall back to its longest prefix).
std::optional<size_t> locateJsonPointer(std::string_view json, std::string_view pointer);

// Gives every diagnostic (and note) its pointer (renderPlaces), then fills
// line/col of those whose location has a pointer into `source` and no line
// yet.
void fillLocations(std::vector<Diagnostic>& diags, const SourceText& source);

}  // namespace fc
