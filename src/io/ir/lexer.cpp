// Printed-IR tokens (see lexer.h).
#include "io/ir/lexer.h"

#include <cstring>

#include "io/ascii_class.h"
#include "io/import_text.h"

namespace fc::ir_text {
using ascii::digit;
using ascii::identChar;
using ascii::identStart;

Lexer::Lexer(std::string_view text) : text_(lex::lexable(text)) {
  const size_t n = text_.size();
  toks_.reserve(n / 4 + 2);
  size_t p = 0;
  bool line_start = true, space = false;
  while (p < n) {
    unsigned char c = static_cast<unsigned char>(text_[p]);
    if (c == '\n') {
      line_start = true;
      space = true;
      ++p;
      continue;
    }
    if (lex::blank(c)) {
      space = true;
      ++p;
      continue;
    }
    if (lex::lineCommentAt(text_, p)) {
      p = lex::skipToLineEnd(text_, p);
      space = true;
      continue;
    }
    Token t;
    t.off = static_cast<uint32_t>(p);
    t.line_start = line_start;
    t.space_before = space;
    line_start = space = false;
    size_t s = p;
    if (identStart(c)) {
      p = lex::skipIdentChars(text_, p);
      // nvFuser's names in namespace std are one word: the complex parts (`std::real`,
      // `std::imag`, `std::complex`), and the complex dtypes, alone or ending a tensor's name
      // (`T0_g_std::complex<float>`, csrc/type.cpp:278-281 @ 81c4b22fd).
      std::string_view word = text_.substr(s, p - s);
      if ((word == "std" || word.ends_with("_std")) && text_.substr(p, 2) == "::" && p + 2 < n &&
          identStart(static_cast<unsigned char>(text_[p + 2]))) {
        p = lex::skipIdentChars(text_, p + 2);
        for (std::string_view arg : {std::string_view("<float>"), std::string_view("<double>")})
          if (text_.substr(s, p - s).ends_with("std::complex") && text_.substr(p, arg.size()) == arg)
            p += arg.size();
      }
      t.kind = Tok::Ident;
    } else if (digit(c)) {
      if (c == '0' && p + 1 < n && (text_[p + 1] == 'x' || text_[p + 1] == 'X')) {
        p = lex::skipIdentChars(text_, p + 2);
      } else {
        while (p < n && digit(static_cast<unsigned char>(text_[p]))) ++p;
        if (p + 1 < n && text_[p] == '.' && digit(static_cast<unsigned char>(text_[p + 1]))) {
          ++p;
          while (p < n && digit(static_cast<unsigned char>(text_[p]))) ++p;
        } else if (p < n && text_[p] == '.' &&
                   !(p + 1 < n && identStart(static_cast<unsigned char>(text_[p + 1])))) {
          ++p;  // `1.` as C prints some doubles
        }
        if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
          size_t q = p + 1;
          if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
          if (q < n && digit(static_cast<unsigned char>(text_[q]))) {
            p = q;
            while (p < n && digit(static_cast<unsigned char>(text_[p]))) ++p;
          }
        }
        // A C++ literal suffix (`1L`, `2UL`, `1.5f`) belongs to the number.
        size_t q = p;
        while (q < n && std::strchr("LlUuFf", text_[q]) != nullptr && text_[q] != 0) ++q;
        if (q > p && !(q < n && identChar(static_cast<unsigned char>(text_[q])))) p = q;
      }
      t.kind = Tok::Number;
    } else if (c >= 0x80) {
      p = lex::skipNonAscii(text_, p);
      t.kind = Tok::Other;
    } else {
      static const char* two[] = {"==", "!=", "<=", ">=", "&&", "||", "->", "::", "**", "<<", ">>"};
      p += 1;
      if (p < n)
        for (const char* d : two)
          if (text_[s] == d[0] && text_[p] == d[1]) {
            ++p;
            break;
          }
      t.kind = Tok::Punct;
    }
    t.len = static_cast<uint32_t>(p - s);
    toks_.push_back(t);
  }
  Token end;
  end.off = static_cast<uint32_t>(n);
  end.line_start = true;
  toks_.push_back(end);
}

}  // namespace fc::ir_text
