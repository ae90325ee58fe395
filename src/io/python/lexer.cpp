// Python tokenizer (see lexer.h).
#include "io/python/lexer.h"

#include <cerrno>
#include <cstdlib>

namespace fc::py {
namespace {

bool isIdStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool isIdChar(unsigned char c) { return isIdStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(std::string_view t, std::vector<Token>& out, LexError& err) : t_(t), out_(out), err_(err) {}

  bool run() {
    out_.reserve(t_.size() / 3 + 8);
    indents_.push_back(0);
    bool line_start = true;
    while (i_ < t_.size()) {
      if (line_start && depth_ == 0) {
        if (!lineStart()) return false;
        line_start = false;
        continue;
      }
      unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
        continue;
      }
      if (c == '\\' && i_ + 1 < t_.size() && (t_[i_ + 1] == '\n' || t_[i_ + 1] == '\r')) {
        i_ += t_[i_ + 1] == '\r' && i_ + 2 < t_.size() && t_[i_ + 2] == '\n' ? 3 : 2;
        continue;
      }
      if (c == '\n') {
        if (depth_ == 0) {
          push(TokKind::Newline, i_, 0);
          line_start = true;
        }
        ++i_;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++i_;
        continue;
      }
      if (isIdStart(c)) {
        size_t start = i_;
        while (i_ < t_.size() && isIdChar(static_cast<unsigned char>(t_[i_]))) ++i_;
        // String prefixes: r, b, u, f and their pairs, right before a quote.
        if (i_ < t_.size() && (t_[i_] == '\'' || t_[i_] == '"') && i_ - start <= 2) {
          bool prefix = true, f = false;
          for (size_t k = start; k < i_; ++k) {
            char p = static_cast<char>(t_[k] | 0x20);
            if (p == 'f') f = true;
            if (p != 'r' && p != 'b' && p != 'u' && p != 'f') prefix = false;
          }
          if (prefix) {
            bool raw = false;
            for (size_t k = start; k < i_; ++k) raw |= (t_[k] | 0x20) == 'r';
            if (!string(start, raw, f)) return false;
            continue;
          }
        }
        push(TokKind::Name, start, i_ - start);
        continue;
      }
      if (isDigit(c) || (c == '.' && i_ + 1 < t_.size() && isDigit(static_cast<unsigned char>(t_[i_ + 1])))) {
        if (!number()) return false;
        continue;
      }
      if (c == '\'' || c == '"') {
        if (!string(i_, false, false)) return false;
        continue;
      }
      if (!op()) return false;
    }
    if (depth_ != 0) return fail(std::string("'") + t_[open_.back()] + "' is never closed", open_.back());
    if (!out_.empty() && out_.back().kind != TokKind::Newline && out_.back().kind != TokKind::Dedent &&
        out_.back().kind != TokKind::Indent)
      push(TokKind::Newline, t_.size(), 0);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokKind::Dedent, t_.size(), 0);
    }
    push(TokKind::End, t_.size(), 0);
    return true;
  }

 private:
  // At the start of a logical line: measure the indentation; blank and comment-only lines do
  // not count.
  bool lineStart() {
    size_t col = 0, j = 0;
    while (true) {  // skip blank and comment-only lines
      col = 0;
      j = i_;
      while (j < t_.size() && (t_[j] == ' ' || t_[j] == '\t' || t_[j] == '\f')) {
        col = t_[j] == '\t' ? (col / 8 + 1) * 8 : col + 1;
        ++j;
      }
      bool blank = j >= t_.size() || t_[j] == '\n' || t_[j] == '#' ||
                   (t_[j] == '\r' && (j + 1 >= t_.size() || t_[j + 1] == '\n'));
      if (!blank) break;
      while (j < t_.size() && t_[j] != '\n') ++j;
      i_ = j < t_.size() ? j + 1 : j;
      if (i_ >= t_.size()) return true;
    }
    i_ = j;
    if (out_.empty() && col > 0) indents_.back() = col;  // a block copied out of a function
    if (col > indents_.back()) {
      indents_.push_back(col);
      push(TokKind::Indent, j, 0);
    } else {
      while (indents_.size() > 1 && col < indents_.back()) {
        indents_.pop_back();
        push(TokKind::Dedent, j, 0);
      }
      // Below the base of a block copied out of a function: the text goes on at this depth.
      if (indents_.size() == 1 && col < indents_.back()) indents_.back() = col;
      if (col != indents_.back()) return fail("this line's indentation matches no enclosing block", j);
    }
    return true;
  }

  bool number() {
    size_t start = i_;
    bool is_float = false;
    std::string lit;
    if (t_[i_] == '0' && i_ + 1 < t_.size() && (t_[i_ + 1] | 0x20) != '.' &&
        ((t_[i_ + 1] | 0x20) == 'x' || (t_[i_ + 1] | 0x20) == 'o' || (t_[i_ + 1] | 0x20) == 'b')) {
      int base = (t_[i_ + 1] | 0x20) == 'x' ? 16 : (t_[i_ + 1] | 0x20) == 'o' ? 8 : 2;
      i_ += 2;
      while (i_ < t_.size() && (isIdChar(static_cast<unsigned char>(t_[i_])))) {
        if (t_[i_] != '_') lit += t_[i_];
        ++i_;
      }
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(lit.c_str(), &end, base);
      if (lit.empty() || *end != 0) return fail("malformed number literal", start);
      if (errno == ERANGE) return fail("integer literal does not fit in 64 bits", start);
      Token& tk = push(TokKind::Int, start, i_ - start);
      tk.i = v;
      return true;
    }
    auto digits = [&] {
      while (i_ < t_.size() && (isDigit(static_cast<unsigned char>(t_[i_])) || t_[i_] == '_')) {
        if (t_[i_] != '_') lit += t_[i_];
        ++i_;
      }
    };
    digits();
    if (i_ < t_.size() && t_[i_] == '.') {
      is_float = true;
      lit += '.';
      ++i_;
      digits();
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < t_.size() && (t_[j] == '+' || t_[j] == '-')) ++j;
      if (j < t_.size() && isDigit(static_cast<unsigned char>(t_[j]))) {
        is_float = true;
        lit.append(t_.substr(i_, j - i_));
        i_ = j;
        digits();
      }
    }
    const bool imaginary = i_ < t_.size() && (t_[i_] == 'j' || t_[i_] == 'J');
    if (imaginary) ++i_;
    if (i_ < t_.size() && isIdStart(static_cast<unsigned char>(t_[i_])))
      return fail("malformed number literal", start);
    errno = 0;
    if (imaginary) {  // an imaginary literal (`0j`, `2.5j`): its digits read as a float, as Python's
      Token& tk = push(TokKind::Imag, start, i_ - start);
      tk.f = std::strtod(lit.c_str(), nullptr);
      return true;
    }
    if (is_float) {
      Token& tk = push(TokKind::Float, start, i_ - start);
      tk.f = std::strtod(lit.c_str(), nullptr);
      return true;
    }
    long long v = std::strtoll(lit.c_str(), nullptr, 10);
    if (errno == ERANGE) return fail("integer literal " + lit + " does not fit in 64 bits", start);
    Token& tk = push(TokKind::Int, start, i_ - start);
    tk.i = v;
    return true;
  }

  // A string literal from `start` (its prefix, if any, ends at i_).
  bool string(size_t start, bool raw, bool fstr) {
    char q = t_[i_];
    bool triple = i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q;
    size_t qn = triple ? 3 : 1;
    i_ += qn;
    std::string val;
    while (true) {
      if (i_ >= t_.size()) return fail("unterminated string literal", start);
      char c = t_[i_];
      if (!triple && c == '\n') return fail("unterminated string literal", start);
      if (c == '\\' && i_ + 1 < t_.size()) {
        char e = t_[i_ + 1];
        if (raw || fstr) {
          val += c;
          val += e;
        } else {
          switch (e) {
            case 'n': val += '\n'; break;
            case 't': val += '\t'; break;
            case '\n': break;
            default: val += e; break;
          }
        }
        i_ += 2;
        continue;
      }
      if (c == q && (!triple || (i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q))) {
        i_ += qn;
        break;
      }
      val += c;
      ++i_;
    }
    Token& tk = push(TokKind::Str, start, i_ - start);
    tk.str = std::move(val);
    tk.fstring = fstr;
    return true;
  }

  bool op() {
    static constexpr std::string_view three[] = {"**=", "//=", ">>=", "<<=", "...", "!=="};
    static constexpr std::string_view two[] = {"->", "**", "==", "!=", "<=", ">=", "//", "<<", ">>", "+=",
                                               "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
    for (std::string_view s : three)
      if (t_.substr(i_, 3) == s && s != "!==") {
        push(TokKind::Op, i_, 3);
        i_ += 3;
        return true;
      }
    for (std::string_view s : two)
      if (t_.substr(i_, 2) == s) {
        push(TokKind::Op, i_, 2);
        i_ += 2;
        return true;
      }
    char c = t_[i_];
    if (std::string_view("()[]{},:.;=+-*/%<>@&|^~").find(c) == std::string_view::npos) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f)
        return fail("unexpected control character (byte " + std::to_string(u) + ")", i_);
      return fail(std::string("unexpected character '") + c + "'", i_);
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth_;
      open_.push_back(i_);
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth_ == 0) return fail(std::string("unmatched '") + c + "'", i_);
      char o = t_[open_.back()];
      if ((c == ')' && o != '(') || (c == ']' && o != '[') || (c == '}' && o != '{'))
        return fail(std::string("'") + c + "' does not match '" + o + "'", i_);
      --depth_;
      open_.pop_back();
    }
    push(TokKind::Op, i_, 1);
    ++i_;
    return true;
  }

  Token& push(TokKind k, size_t off, size_t len) {
    Token t;
    t.kind = k;
    t.off = static_cast<uint32_t>(off);
    if (k == TokKind::Name || k == TokKind::Op) t.s = t_.substr(off, len);
    out_.push_back(std::move(t));
    return out_.back();
  }
  bool fail(std::string m, size_t off) {
    err_.message = std::move(m);
    err_.off = static_cast<uint32_t>(off);
    return false;
  }

  std::string_view t_;
  std::vector<Token>& out_;
  LexError& err_;
  size_t i_ = 0;
  int depth_ = 0;
  std::vector<size_t> open_;
  std::vector<size_t> indents_;
};

}  // namespace

bool isKeyword(std::string_view s) {
  static constexpr std::string_view kw[] = {
      "False", "None",   "True", "and",   "as",     "assert",   "break", "class", "continue",
      "def",   "del",    "elif", "else",  "except", "finally",  "for",   "from",  "global",
      "if",    "import", "in",   "is",    "lambda", "nonlocal", "not",   "or",    "pass",
      "raise", "return", "try",  "while", "with",   "yield"};
  for (std::string_view k : kw)
    if (k == s) return true;
  return false;
}

std::string describeToken(const Token& t) {
  switch (t.kind) {
    case TokKind::End: return "the end of the text";
    case TokKind::Newline: return "the end of the line";
    case TokKind::Indent: return "an indented line";
    case TokKind::Dedent: return "the end of the block";
    case TokKind::Str: return "a string";
    case TokKind::Int:
    case TokKind::Float:
    case TokKind::Imag: return "a number";
    default: return "'" + std::string(t.s) + "'";
  }
}

bool tokenize(std::string_view text, std::vector<Token>& out, LexError& err) {
  out.clear();
  return Lexer(text, out, err).run();
}

}  // namespace fc::py
