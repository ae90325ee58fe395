// The tokens of the C++ subset nvFuser's tests are written in: identifiers, numbers (with
// suffixes such as `1L`, `2.0f`), string and character literals, operators (`::`, `->`, `<<`,
// `&&`, `+=`, ...), single characters. Comments (`//`, `/* */`) and preprocessor lines (`#include`,
// `#endif`) are skipped; a `>>` closing two template lists is two `>` tokens. A type alias
// (`using X = T;`) is expanded where X is used.
//
// Complexity: one pass over the text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fc::cpp_text {

enum class Tok : uint8_t { Ident, Number, String, Char, Punct, Other, End };

struct Token {
  Tok kind = Tok::End;
  uint32_t off = 0;
  uint32_t len = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text);
  const std::vector<Token>& tokens() const { return toks_; }  // ends with one End token
  std::string_view str(size_t i) const { return text_.substr(toks_[i].off, toks_[i].len); }
  std::string_view text() const { return text_; }
  // Where an unterminated comment or literal starts, or SIZE_MAX.
  size_t unterminated() const { return unterminated_; }

 private:
  // `using X = T;` type aliases (`using Sizes = std::vector<int64_t>;`) whose T has no comma: each
  // later use of X is T's tokens (whose offsets are the alias's text, where a diagnostic about them
  // points).
  void expandTypeAliases();
  std::string_view text_;
  std::vector<Token> toks_;
  size_t unterminated_ = SIZE_MAX;
};

}  // namespace fc::cpp_text
