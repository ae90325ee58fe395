#include "io/python_segment_dump.h"

#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace fc {

namespace {

constexpr std::string_view kHeader = "Python definition for segmented group ";

// Whether `line` is a segment header (the phrase, a group number, a colon); its label if so.
bool isHeader(std::string_view line, std::string& label) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  line.remove_prefix(i);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
    line.remove_suffix(1);
  if (!line.starts_with(kHeader) || !line.ends_with(":")) return false;
  std::string_view num = line.substr(kHeader.size(), line.size() - kHeader.size() - 1);
  if (num.empty() || num.find_first_not_of("0123456789") != std::string_view::npos) return false;
  label = std::string(line.substr(0, line.size() - 1));
  return true;
}

}  // namespace

std::vector<PythonSegment> findPythonSegments(std::string_view text) {
  std::vector<PythonSegment> out;
  if (text.find(kHeader) == std::string_view::npos) return out;
  for (size_t p = 0; p < text.size();) {
    size_t e = text.find('\n', p);
    if (e == std::string_view::npos) e = text.size();
    std::string label;
    if (isHeader(text.substr(p, e - p), label)) {
      if (!out.empty()) out.back().end = p;
      out.push_back(PythonSegment{p, text.size(), std::move(label)});
    }
    p = e + 1;
  }
  return out;
}

MappedText pickPythonSegment(const MappedText& text, std::string_view which, DiagnosticSink& sink, bool& ok) {
  ok = true;
  const std::vector<PythonSegment> segs = findPythonSegments(text.text());
  if (segs.size() < 2) return text;
  size_t k = 0;
  if (which == "last") {
    k = segs.size() - 1;
  } else if (!which.empty() && which != "first") {
    size_t n = 0;
    auto [ptr, ec] = std::from_chars(which.data(), which.data() + which.size(), n);
    if (ec != std::errc() || ptr != which.data() + which.size() || n == 0 || n > segs.size()) {
      sink.error(DiagCode::Usage, "--dump " + std::string(which) + ": the log holds " +
                                      std::to_string(segs.size()) +
                                      " segment definitions; give a number from 1 to " +
                                      std::to_string(segs.size()) + ", `first` or `last`");
      ok = false;
      return text;
    }
    k = n - 1;
  }
  const PythonSegment& s = segs[k];
  MappedText::Builder b(text);
  const std::string_view t = text.text();
  // Lines before and after the segment stay, blank.
  for (size_t p = 0; p < s.begin; ++p)
    if (t[p] == '\n') b.insert("\n", p);
  b.copy(s.begin, s.end - s.begin);
  for (size_t p = s.end; p < t.size(); ++p)
    if (t[p] == '\n') b.insert("\n", p);
  sink.report(Severity::Note, DiagCode::ImportNote,
              "the log holds " + std::to_string(segs.size()) +
                  " segment definitions (NVFUSER_DUMP=python_definition_segments); segment " +
                  std::to_string(k + 1) + ", `" + s.label +
                  "`, is imported (`--dump N` picks another, `import --list` lists them)",
              text.location(s.begin));
  return std::move(b).build();
}

}  // namespace fc
