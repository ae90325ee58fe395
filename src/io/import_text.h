// What the importers of text share. The lexers of C++ tests (io/cpp/lexer.h) and of nvFuser's
// printed IR (io/ir/lexer.h) read at most 4 GiB of text (their offsets are 32-bit), skip the same
// blanks and `//` comments, and scan identifiers and non-ASCII characters alike: a `skip` function
// takes the text and a position in it and returns the position past what it scanned. Their
// readers walk the tokens with a TokenCursor. The importers (Python repros too) look names up in
// tables of spellings: dtypes by C++, torch or ATen names and their aliases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "io/ascii_class.h"
#include "ir/types.h"

namespace fc::lex {

// The part of `text` a lexer reads: its first 4 GiB less two bytes, so that every offset and the
// End token's fit in 32 bits.
inline std::string_view lexable(std::string_view text) { return text.substr(0, UINT32_MAX - 1); }

// A blank other than a line break.
constexpr bool blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Whether a `//` comment starts at `p` (< text.size()).
inline bool lineCommentAt(std::string_view text, size_t p) {
  return text[p] == '/' && p + 1 < text.size() && text[p + 1] == '/';
}

// Past the rest of the line from `p`: at its '\n', or at the end of the text.
inline size_t skipToLineEnd(std::string_view text, size_t p) {
  while (p < text.size() && text[p] != '\n') ++p;
  return p;
}

// Past the identifier characters (ASCII letters, digits, '_') from `p`.
inline size_t skipIdentChars(std::string_view text, size_t p) {
  while (p < text.size() && ascii::identChar(static_cast<unsigned char>(text[p]))) ++p;
  return p;
}

// Past the non-ASCII character whose first byte is at `p`, with its UTF-8 continuation bytes.
inline size_t skipNonAscii(std::string_view text, size_t p) {
  ++p;
  while (p < text.size() && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) ++p;
  return p;
}

// A reader's position in the tokens [0, end) of a lexer whose tokens end with one End token at
// index `end` or later; a token index at or past `end` reads as the End token at `end`.
// `Lexer::tokens()` gives the Token vector; each Token's `kind` is an enum with Punct and Ident.
template <class Lexer, class Token>
class TokenCursor {
 public:
  TokenCursor(const Lexer& lex, size_t p, size_t end) : lex_(lex), toks_(lex.tokens()), p_(p), end_(end) {}

  const Token& tok(size_t i) const { return toks_[i < end_ ? i : end_]; }
  std::string_view str(size_t i) const { return i < end_ ? lex_.str(i) : std::string_view(); }
  bool isPunct(size_t i, std::string_view s) const {
    return i < end_ && toks_[i].kind == decltype(Token::kind)::Punct && str(i) == s;
  }
  bool isIdent(size_t i, std::string_view s) const { return isIdent(i) && str(i) == s; }
  bool isIdent(size_t i) const { return i < end_ && toks_[i].kind == decltype(Token::kind)::Ident; }
  // Steps past the punctuator `punct` when it is the current token.
  bool eat(std::string_view punct) {
    if (!isPunct(p_, punct)) return false;
    ++p_;
    return true;
  }

  const Lexer& lex_;
  const std::vector<Token>& toks_;
  size_t p_, end_;  // the current token; the end of the tokens read
};

// One entry of a table of spellings: `name` stands for `value`.
template <class T>
struct Spelling {
  std::string_view name;
  T value;
};

// The value `s` spells in `table` (the first entry of that name), or nullopt.
template <class T, size_t N>
std::optional<T> spelled(const Spelling<T> (&table)[N], std::string_view s) {
  for (const Spelling<T>& e : table)
    if (e.name == s) return e.value;
  return std::nullopt;
}

// The dtype `spell` (dtypeCppName, dtypeTorchName, dtypeAtenName) gives the spelling `s`, the first
// in DType order where two dtypes share it (Int before Index); else the dtype `s` spells among
// `aliases`, or nullopt.
template <size_t N>
std::optional<DType> dtypeSpelled(std::string_view s, std::string_view (*spell)(DType),
                                  const Spelling<DType> (&aliases)[N]) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (spell(static_cast<DType>(i)) == s) return static_cast<DType>(i);
  return spelled(aliases, s);
}

}  // namespace fc::lex
