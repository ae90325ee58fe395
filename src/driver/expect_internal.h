// Helpers shared by the files of the expectation format (expect.h); not
// part of its interface.
#pragma once

#include <string>
#include <string_view>

#include "driver/expect.h"

namespace fc::driver::expect {

// Python's json.dumps(v, ensure_ascii=False): ", " and ": " separators, the
// layout the project's runner writes and quotes in its messages.
std::string pyDumps(const ojson& v);
// The number of Unicode code points of UTF-8 text (Python's len()).
size_t codePoints(std::string_view s);

// Keys of an outcome, in the order they are written.
inline const char* const kOutcomeKeys[] = {"comment",  "verdict",         "exit",
                                           "fixed_by", "max_seconds",     "max_rss_mb",
                                           "numerics", "output_contains", "diagnostics"};
inline const char* const kRecorded[] = {"verdict", "exit", "diagnostics"};
inline const char* const kLocationKeys[] = {"pointer", "line", "col"};

}  // namespace fc::driver::expect
