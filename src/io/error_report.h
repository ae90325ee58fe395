// Recognizing an nvFuser error report pasted without its fusion: a Python traceback, NVF_ERROR's
// "INTERNAL ASSERT FAILED", NVF_CHECK's "Exception raised from", gtest's "C++ exception with
// description", the frames of a C++ stack. Format detection (import_detect.h) sends such a text to
// the printed-IR reader, which says what it is and what import needs instead.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace fc {

struct ErrorReportLine {
  size_t offset = 0;      // where the line's text starts in the whole text
  std::string_view line;  // trimmed of leading and trailing blanks
};

// The most telling error-report line of `text` (the first line holding the highest-ranked mark, in
// the order above with the assertion first), or nothing when the text holds none.
std::optional<ErrorReportLine> findErrorReport(std::string_view text);

// Whether `text` quotes a Python traceback's header anywhere.
bool hasPythonTraceback(std::string_view text);

}  // namespace fc
