#include "viz/markup.h"

#include "support/escape.h"

namespace fc::viz {

std::string escapeHtml(std::string_view s) {
  static constexpr EscapeTable kHtml = kMarkupEscapes.with('\'', "&#39;");
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  appendEscaped(out, s, kHtml, ReplaceControls{"\n\t", "\xEF\xBF\xBD"});
  return out;
}

std::string safeId(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 1);
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (s.empty() || !letter(s.front())) out += 'x';
  for (char c : s) {
    if (letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '.') {
      out += c;
    } else {
      out += '_';
      appendHexByte(out, static_cast<unsigned char>(c));
    }
  }
  return out;
}

}  // namespace fc::viz
