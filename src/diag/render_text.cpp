// The text renderer for diagnostics (layout documented in docs/diagnostics.md):
//
//   FILE:LINE:COL: error[FC0202]: MESSAGE [/json/pointer]
//       <the offending source line>
//           ^
//     note: MESSAGE [LINE:COL /json/pointer]
//     fix[name]: MESSAGE
//
// When the line is unknown the header falls back to FILE:/json/pointer: and
// no source line is shown. Very long source lines (minified JSON) are shown
// as a window around the column. Complexity: linear in the output size plus
// one line lookup per diagnostic (SourceText's index is built once).
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "diag/render.h"

namespace fc {
namespace {

std::atomic<ColorMode> g_color_mode{ColorMode::Auto};

// SGR sequences; all empty when the stream gets no colour.
struct Palette {
  const char* bold = "";
  const char* error = "";
  const char* warning = "";
  const char* dim = "";
  const char* caret = "";
  const char* reset = "";
};

Palette palette(bool on) {
  if (!on) return {};
  return {"\033[1m", "\033[1;31m", "\033[1;35m", "\033[2m", "\033[1;32m", "\033[0m"};
}

const char* severityColor(const Palette& p, Severity s) {
  switch (s) {
    case Severity::Error: return p.error;
    case Severity::Warning:
    case Severity::NotDecided: return p.warning;
    case Severity::Note:
    case Severity::Remark: return p.bold;
  }
  return p.error;
}

constexpr size_t kMaxLine = 160;  // longer lines are cut to a window around the caret
constexpr size_t kContext = 60;

std::string header(const Location& loc) {
  std::string out = loc.file;
  auto add = [&](const std::string& part) {
    if (!out.empty()) out += ':';
    out += part;
  };
  if (loc.known()) {
    add(std::to_string(loc.line) + ":" + std::to_string(loc.col));
  } else if (!loc.pointer.empty()) {
    add(loc.pointer);
  }
  return out;
}

// " [LINE:COL /pointer]" (or a prefix of it) for a note's location; the
// note's file is printed only when it differs from the diagnostic's.
std::string noteWhere(const Location& loc, const std::string& diag_file) {
  std::string parts;
  if (!loc.file.empty() && loc.file != diag_file) parts = loc.file;
  if (loc.known())
    parts += (parts.empty() ? "" : ":") + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  if (!loc.pointer.empty()) parts += (parts.empty() ? "" : " ") + loc.pointer;
  return parts.empty() ? std::string() : " [" + parts + "]";
}

void caret(std::string_view line, int col, const Palette& p, std::ostream& os) {
  size_t c = col > 0 ? static_cast<size_t>(col - 1) : 0;  // 0-based byte column
  if (c > line.size()) c = line.size();
  std::string_view shown = line;
  std::string prefix, suffix;
  size_t offset = 0;
  if (line.size() > kMaxLine) {
    size_t from = c > kContext ? c - kContext : 0;
    size_t to = std::min(line.size(), c + kContext);
    if (from > 0) prefix = "...";
    if (to < line.size()) suffix = "...";
    shown = line.substr(from, to - from);
    offset = from;
  }
  os << "    " << prefix << shown << suffix << '\n';
  std::string pad = "    " + std::string(prefix.size(), ' ');
  for (size_t i = offset; i < c; ++i) pad += line[i] == '\t' ? '\t' : ' ';
  os << pad << p.caret << '^' << p.reset << '\n';
}

}  // namespace

void setColorMode(ColorMode m) { g_color_mode.store(m, std::memory_order_relaxed); }
ColorMode colorMode() { return g_color_mode.load(std::memory_order_relaxed); }

bool colorFor(const std::ostream& os) {
  switch (colorMode()) {
    case ColorMode::Always: return true;
    case ColorMode::Never: return false;
    case ColorMode::Auto: break;
  }
  int fd = &os == &std::cerr || &os == &std::clog ? STDERR_FILENO : &os == &std::cout ? STDOUT_FILENO : -1;
  if (fd < 0 || !isatty(fd)) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::strcmp(term, "dumb") == 0);
}

void renderText(const std::vector<Diagnostic>& diags, const SourceText* source, std::ostream& os) {
  checkPlacesRendered(diags);
  const Palette p = palette(!diags.empty() && colorFor(os));
  for (const Diagnostic& d : diags) {
    const DiagCodeInfo& info = diagCodeInfo(d.code);
    std::string where = header(d.loc);
    if (!where.empty()) os << p.bold << where << ": " << p.reset;
    os << severityColor(p, d.severity) << severityName(d.severity) << '[' << info.id << "]:" << p.reset << ' '
       << p.bold << d.message << p.reset;
    if (d.loc.known() && !d.loc.pointer.empty()) os << " [" << d.loc.pointer << ']';
    os << '\n';
    if (source && d.loc.known() && (d.loc.file.empty() || d.loc.file == source->path())) {
      std::string_view line = source->lineText(d.loc.line);
      if (!line.empty() || d.loc.col <= 1) caret(line, d.loc.col, p, os);
    }
    for (const Note& n : d.notes)
      os << "  " << p.dim << n.kind << ": " << n.message << noteWhere(n.loc, d.loc.file) << p.reset << '\n';
  }
}

}  // namespace fc
