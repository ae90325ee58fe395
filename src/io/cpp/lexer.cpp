// C++ tokens (see lexer.h).
#include "io/cpp/lexer.h"

#include <algorithm>
#include <cstring>

#include "io/ascii_class.h"
#include "io/import_text.h"

namespace fc::cpp_text {
using ascii::digit;
using ascii::identChar;
using ascii::identStart;

Lexer::Lexer(std::string_view text) : text_(lex::lexable(text)) {
  const size_t n = text_.size();
  size_t p = 0;
  bool line_start = true;
  while (p < n) {
    unsigned char c = static_cast<unsigned char>(text_[p]);
    if (c == '\n') {
      line_start = true;
      ++p;
      continue;
    }
    if (lex::blank(c)) {
      ++p;
      continue;
    }
    if (c == '#' && line_start) {  // a preprocessor line, with its continuations
      while (p < n && text_[p] != '\n') {
        if (text_[p] == '\\' && p + 1 < n && text_[p + 1] == '\n') ++p;
        ++p;
      }
      continue;
    }
    line_start = false;
    if (lex::lineCommentAt(text_, p)) {
      p = lex::skipToLineEnd(text_, p);
      continue;
    }
    if (c == '/' && p + 1 < n && text_[p + 1] == '*') {
      size_t e = text_.find("*/", p + 2);
      if (e == std::string_view::npos) {
        if (unterminated_ == SIZE_MAX) unterminated_ = p;
        p = n;
      } else {
        p = e + 2;
      }
      continue;
    }
    Token t;
    t.off = static_cast<uint32_t>(p);
    size_t s = p;
    if (identStart(c)) {
      p = lex::skipIdentChars(text_, p);
      // A raw string R"(...)" is skipped whole.
      if (p - s == 1 && text_[s] == 'R' && p < n && text_[p] == '"') {
        size_t e = text_.find(")\"", p);
        p = e == std::string_view::npos ? n : e + 2;
        t.kind = Tok::String;
      } else {
        t.kind = Tok::Ident;
      }
    } else if (digit(c) || (c == '.' && p + 1 < n && digit(static_cast<unsigned char>(text_[p + 1])))) {
      while (p < n &&
             (identChar(static_cast<unsigned char>(text_[p])) || text_[p] == '.' || text_[p] == '\'' ||
              ((text_[p] == '+' || text_[p] == '-') && (text_[p - 1] == 'e' || text_[p - 1] == 'E') &&
               !(text_[s] == '0' && s + 1 < n && (text_[s + 1] == 'x' || text_[s + 1] == 'X')))))
        ++p;
      t.kind = Tok::Number;
    } else if (c == '"' || c == '\'') {
      ++p;
      while (p < n && text_[p] != static_cast<char>(c) && text_[p] != '\n') p += text_[p] == '\\' ? 2 : 1;
      if (p >= n || text_[p] != static_cast<char>(c)) {
        if (unterminated_ == SIZE_MAX) unterminated_ = s;
        p = std::min(p, n);
      } else {
        ++p;
      }
      t.kind = c == '"' ? Tok::String : Tok::Char;
    } else if (c >= 0x80) {
      p = lex::skipNonAscii(text_, p);
      t.kind = Tok::Other;
    } else {
      static const char* three[] = {"<<=", ">>=", "..."};
      static const char* two[] = {"::", "->", "==", "!=", "<=", ">=", "&&", "||", "<<",
                                  "++", "--", "+=", "-=", "*=", "/=", "%=", "|=", "&="};
      size_t len = 1;
      for (const char* d : three)
        if (text_.compare(p, 3, d) == 0) len = 3;
      if (len == 1)
        for (const char* d : two)
          if (text_.compare(p, 2, d) == 0) len = 2;
      p += len;
      t.kind = Tok::Punct;
    }
    t.len = static_cast<uint32_t>(p - s);
    toks_.push_back(t);
  }
  Token end;
  end.off = static_cast<uint32_t>(n);
  toks_.push_back(end);
}

}  // namespace fc::cpp_text
