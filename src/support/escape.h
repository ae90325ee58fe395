// Escaping text one byte at a time, driven by a table: each byte the table
// lists is replaced by its text, every other byte goes to a fallback (copied
// unless the caller passes one). The escapers of the output formats (JSON
// strings, XML and HTML text, GitHub workflow commands, Graphviz escStrings,
// JSON pointer tokens) are each a table and at most a fallback. O(length).
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace fc {

// The replacement text of each byte; a byte without one (an empty text) is
// left to the fallback.
class EscapeTable {
 public:
  constexpr EscapeTable(std::initializer_list<std::pair<char, std::string_view>> entries) {
    for (auto [c, text] : entries) text_[static_cast<unsigned char>(c)] = text;
  }
  // This table with c replaced by text as well (or instead).
  constexpr EscapeTable with(char c, std::string_view text) const {
    EscapeTable t = *this;
    t.text_[static_cast<unsigned char>(c)] = text;
    return t;
  }
  constexpr std::string_view operator[](unsigned char c) const { return text_[c]; }

 private:
  std::array<std::string_view, 256> text_{};
};

// The fallback that copies the byte.
struct CopyByte {
  void operator()(std::string& out, unsigned char c) const { out += static_cast<char>(c); }
};

// A fallback for markup: a control character (below 0x20) not in `keep`
// becomes `replacement`; every other byte is copied.
struct ReplaceControls {
  std::string_view keep;
  std::string_view replacement;
  void operator()(std::string& out, unsigned char c) const {
    if (c < 0x20 && keep.find(static_cast<char>(c)) == std::string_view::npos)
      out += replacement;
    else
      out += static_cast<char>(c);
  }
};

// Appends s to out: each byte listed in `table` as its text, every other
// byte through other(out, byte).
template <class Other = CopyByte>
void appendEscaped(std::string& out, std::string_view s, const EscapeTable& table, Other&& other = {}) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (std::string_view text = table[c]; !text.empty())
      out += text;
    else
      other(out, c);
  }
}

// s escaped as appendEscaped does, as a new string.
template <class Other = CopyByte>
std::string escaped(std::string_view s, const EscapeTable& table, Other&& other = {}) {
  std::string out;
  appendEscaped(out, s, table, std::forward<Other>(other));
  return out;
}

// Appends c as two lowercase hex digits.
inline void appendHexByte(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

// The entities every markup writer needs; the apostrophe's differs (XML
// &apos;, HTML &#39;), so each adds its own with `with`.
inline constexpr EscapeTable kMarkupEscapes{{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}};

// The two-character escapes of a JSON string.
inline constexpr EscapeTable kJsonEscapes{{'"', "\\\""}, {'\\', "\\\\"}, {'\b', "\\b"}, {'\f', "\\f"},
                                          {'\n', "\\n"}, {'\r', "\\r"},  {'\t', "\\t"}};

// Appends s as a quoted JSON string: the two-character escapes, every other
// control character as \u00xx (DEL too when escape_del, as Python's json
// module writes it), every other byte (UTF-8 included) as it is.
inline void appendJsonString(std::string& out, std::string_view s, bool escape_del = false) {
  out += '"';
  appendEscaped(out, s, kJsonEscapes, [escape_del](std::string& o, unsigned char c) {
    if (c < 0x20 || (escape_del && c == 0x7f)) {
      o += "\\u00";
      appendHexByte(o, c);
    } else {
      o += static_cast<char>(c);
    }
  });
  out += '"';
}

}  // namespace fc
