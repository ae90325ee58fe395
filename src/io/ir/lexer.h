// The tokens of nvFuser's printed IR (and of the logs and pastes around it): identifiers, numbers,
// operators and single characters, each with its byte offset and whether a line break or a space
// precedes it. Newlines are not tokens: nvFuser prints one expr over several lines and pastes join
// lines, so the reader goes by tokens and asks `line_start` only where a line matters (headers,
// scalar statements, prose). `//` starts a comment to the end of the line (`} // %kernel_math`).
//
// Complexity: one pass over the text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fc::ir_text {

enum class Tok : uint8_t {
  Ident,   // [A-Za-z_][A-Za-z0-9_]*
  Number,  // 12, 0.5, 1e-05, 0x1c1e (digits first; a sign is a separate token)
  Punct,   // one ASCII character, or one of == != <= >= && || -> :: **
  Other,   // one non-ASCII character (a UTF-8 sequence such as the bullet a paste shows for `+`)
  End,     // past the last token
};

struct Token {
  Tok kind = Tok::End;
  uint32_t off = 0;  // byte offset in the text
  uint32_t len = 0;
  bool line_start = false;    // a line break (or the start of the text) precedes it
  bool space_before = false;  // whitespace precedes it
};

class Lexer {
 public:
  // Texts over 4 GiB are cut at 4 GiB (offsets are 32-bit); importers refuse them earlier.
  explicit Lexer(std::string_view text);

  const std::vector<Token>& tokens() const { return toks_; }  // ends with one End token
  std::string_view text() const { return text_; }
  std::string_view str(const Token& t) const { return text_.substr(t.off, t.len); }
  std::string_view str(size_t i) const { return str(toks_[i]); }

 private:
  std::string_view text_;
  std::vector<Token> toks_;
};

}  // namespace fc::ir_text
