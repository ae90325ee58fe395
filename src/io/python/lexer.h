// The tokenizer of the Python subset that nvFuser repros are written in: names, numbers,
// strings (with their r / b / f / u prefixes; an f-string keeps its text unevaluated), operators,
// NEWLINE and the INDENT / DEDENT pairs of Python's indentation rule. Newlines inside brackets
// and after a backslash join lines; comments and blank lines produce nothing.
//
// Errors (an unterminated string, an unmatched bracket, a dedent to no enclosing level, a
// character Python has no token for) stop the scan with a message and the byte offset.
//
// Complexity: linear in the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fc::py {

enum class TokKind : uint8_t { Name, Int, Float, Imag, Str, Op, Newline, Indent, Dedent, End };

struct Token {
  TokKind kind = TokKind::End;
  uint32_t off = 0;      // byte offset of the token's first character
  std::string_view s;    // Name / Op text; Str: the decoded value lives in `str`
  std::string str;       // Str: the value (escapes decoded; an f-string's raw text)
  bool fstring = false;  // Str: an f-string
  int64_t i = 0;         // Int
  double f = 0;          // Float; Imag: the imaginary literal's value (`2.5j`)
};

struct LexError {
  std::string message;
  uint32_t off = 0;
};

// Whether `s` is a Python keyword.
bool isKeyword(std::string_view s);

// The token as a syntax error names it ("'('", "a number", "the end of the line").
std::string describeToken(const Token& t);

// Tokenizes `text` into `out` (ending with End); false with `err` set on the first error.
bool tokenize(std::string_view text, std::vector<Token>& out, LexError& err);

}  // namespace fc::py
