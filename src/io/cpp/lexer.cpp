// C++ tokens (see lexer.h).
#include "io/cpp/lexer.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

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
  expandTypeAliases();
}

void Lexer::expandTypeAliases() {
  auto is = [&](const std::vector<Token>& v, size_t i, Tok k, std::string_view s) {
    return i < v.size() && v[i].kind == k && text_.substr(v[i].off, v[i].len) == s;
  };
  std::unordered_map<std::string_view, std::vector<Token>> aliases;
  std::vector<Token> out;
  out.reserve(toks_.size());
  for (size_t i = 0; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    const std::string_view s = text_.substr(t.off, t.len);
    if (s == "using" && t.kind == Tok::Ident && i + 2 < toks_.size() && toks_[i + 1].kind == Tok::Ident &&
        is(toks_, i + 2, Tok::Punct, "=")) {
      // `using X = T;`: T's tokens, aliases in it expanded, up to the `;`.
      std::vector<Token> rhs;
      size_t j = i + 3;
      for (; j < toks_.size() && toks_[j].kind != Tok::End && !is(toks_, j, Tok::Punct, ";"); ++j) {
        auto a = toks_[j].kind == Tok::Ident ? aliases.find(text_.substr(toks_[j].off, toks_[j].len))
                                             : aliases.end();
        if (a != aliases.end())
          rhs.insert(rhs.end(), a->second.begin(), a->second.end());
        else
          rhs.push_back(toks_[j]);
      }
      // One without a comma only: a `,` in template arguments (`std::pair<A, B>`) would split the
      // argument lists the reader walks by brackets (a generator's, a macro's).
      const bool comma = std::any_of(rhs.begin(), rhs.end(), [&](const Token& r) {
        return r.kind == Tok::Punct && text_.substr(r.off, r.len) == ",";
      });
      if (!rhs.empty() && !comma && is(toks_, j, Tok::Punct, ";"))
        aliases[text_.substr(toks_[i + 1].off, toks_[i + 1].len)] = rhs;
      out.insert(out.end(), toks_.begin() + static_cast<std::ptrdiff_t>(i),
                 toks_.begin() + static_cast<std::ptrdiff_t>(std::min(j + 1, toks_.size())));
      i = std::min(j, toks_.size() - 1);
      continue;
    }
    // A use: an identifier not reached through `.`, `->` or `::` (a member of the same name).
    auto a = t.kind == Tok::Ident ? aliases.find(s) : aliases.end();
    const bool member = !out.empty() && (is(out, out.size() - 1, Tok::Punct, ".") ||
                                         is(out, out.size() - 1, Tok::Punct, "->") ||
                                         is(out, out.size() - 1, Tok::Punct, "::"));
    if (a != aliases.end() && !member)
      out.insert(out.end(), a->second.begin(), a->second.end());
    else
      out.push_back(t);
  }
  toks_ = std::move(out);
}

}  // namespace fc::cpp_text
