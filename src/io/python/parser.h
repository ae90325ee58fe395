// The parser of the Python subset nvFuser repros use, from tokens (lexer.h) to the tree of
// ast.h: modules, imports, function and class definitions with decorators, `with`, `for`,
// `while`, `if` / `elif` / `else`, `try`, `match`, assignments with tuple, attribute and subscript
// targets, augmented and annotated assignments, calls with keyword and starred arguments,
// lists, tuples, sets, dicts, comprehensions, lambdas, conditional expressions, the full
// operator precedence of Python, subscripts and slices.
//
// Nesting is limited to kMaxDepth levels so that no input exhausts the stack; the first
// syntax error stops the parse with a message and the byte offset.
//
// Complexity: linear in the number of tokens.
#pragma once

#include <string>
#include <vector>

#include "io/python/ast.h"
#include "io/python/lexer.h"

namespace fc::py {

constexpr int kMaxDepth = 64;

struct ParseError {
  std::string message;
  uint32_t off = 0;
};

// Parses `text` into `m`; false with `err` set on a lexical or syntax error.
bool parseModule(std::string_view text, Module& m, ParseError& err);

}  // namespace fc::py
