// Error reports pasted without their fusion (see error_report.h).
#include "io/error_report.h"

#include <iterator>

namespace fc {

std::optional<ErrorReportLine> findErrorReport(std::string_view text) {
  static constexpr std::string_view kMarks[] = {
      "INTERNAL ASSERT FAILED", "C++ exception with description",    "RuntimeError:",
      "Exception raised from",  "Traceback (most recent call last)", "frame #"};
  std::optional<ErrorReportLine> best;
  size_t best_rank = std::size(kMarks);
  for (size_t start = 0; start < text.size() && best_rank > 0;) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    for (size_t k = 0; k < best_rank; ++k)
      if (line.find(kMarks[k]) != std::string_view::npos) {
        const size_t lead = line.find_first_not_of(" \t");
        best = ErrorReportLine{start + lead, line.substr(lead)};
        best_rank = k;
        break;
      }
    start = end + 1;
  }
  if (best) {
    std::string_view& l = best->line;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
  }
  return best;
}

bool hasPythonTraceback(std::string_view text) {
  return text.find("Traceback (most recent call last)") != std::string_view::npos;
}

}  // namespace fc
