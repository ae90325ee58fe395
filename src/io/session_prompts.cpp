#include "io/session_prompts.h"

#include <cctype>
#include <string>

namespace fc {
namespace {

enum class Style : uint8_t { None, Repl, IPython };

// Bytes of an IPython input prompt (`In [12]: `, the space optional at the end of a line), or 0.
size_t ipythonInput(std::string_view s) {
  if (!s.starts_with("In [")) return 0;
  size_t i = 4;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 4 || s.compare(i, 3, "]: ") != 0)
    return s.compare(i, 2, "]:") == 0 && i + 2 == s.size() ? i + 2 : 0;
  return i + 3;
}

// Bytes of an IPython continuation prompt (`   ...: `), or 0.
size_t ipythonContinuation(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (s.compare(i, 4, "...:") != 0) return 0;
  i += 4;
  return i < s.size() && s[i] == ' ' ? i + 1 : i;
}

// Bytes of a standard REPL prompt (`>>> ` or `... `, alone on a line without the space), or 0.
size_t replPrompt(std::string_view s) {
  for (std::string_view p : {std::string_view(">>>"), std::string_view("...")}) {
    if (!s.starts_with(p)) continue;
    if (s.size() == 3) return 3;
    if (s[3] == ' ') return 4;
  }
  return 0;
}

std::string_view lineAt(std::string_view t, size_t begin) {
  const size_t end = t.find('\n', begin);
  std::string_view s = t.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

Style styleOf(std::string_view t) {
  size_t p = 0;
  while (p < t.size()) {
    std::string_view s = lineAt(t, p);
    if (s.find_first_not_of(" \t") != std::string_view::npos) {
      if (s.starts_with(">>>") && replPrompt(s)) return Style::Repl;
      if (ipythonInput(s)) return Style::IPython;
      return Style::None;
    }
    const size_t nl = t.find('\n', p);
    if (nl == std::string_view::npos) break;
    p = nl + 1;
  }
  return Style::None;
}

}  // namespace

MappedText unprompt(const MappedText& text, DiagnosticSink& sink) {
  std::string_view t = text.text();
  const Style style = styleOf(t);
  if (style == Style::None) return text;
  MappedText::Builder b(text);
  size_t inputs = 0, skipped = 0;
  size_t p = 0;
  while (p < t.size()) {
    const size_t nl = t.find('\n', p);
    const size_t end = nl == std::string_view::npos ? t.size() : nl;
    std::string_view s = lineAt(t, p);
    size_t cut = 0;
    if (style == Style::Repl) {
      cut = replPrompt(s);
    } else {
      cut = ipythonInput(s);
      if (!cut) cut = ipythonContinuation(s);
    }
    if (cut) {
      ++inputs;
      b.copy(p + cut, end - p - cut);
    } else if (s.find_first_not_of(" \t") != std::string_view::npos) {
      ++skipped;  // the session's output: keep the line count only
    }
    if (nl != std::string_view::npos) b.insert("\n", nl);
    p = end + 1;
  }
  sink.report(Severity::Note, DiagCode::ImportNote,
              std::string("the text is an interactive Python session (") +
                  (style == Style::Repl ? "`>>>` prompts" : "IPython `In [n]:` prompts") +
                  "): the code of its " + std::to_string(inputs) + " prompt line(s) is read" +
                  (skipped ? "; " + std::to_string(skipped) + " output line(s) are skipped" : std::string()),
              text.location(0));
  return std::move(b).build();
}

}  // namespace fc
