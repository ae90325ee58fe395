// The syntax tree of a parsed Python repro: one arena of nodes, statements and expressions
// alike, children by index. What each kind keeps in `a`, `b` and `c` is listed with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fc::py {

using NodeId = uint32_t;
constexpr NodeId kNoNode = UINT32_MAX;

enum class NK : uint8_t {
  // ---- expressions
  Name,   // s
  Int,    // i
  Float,  // f
  Imag,   // f: an imaginary literal (`0.5j`)
  Str,    // s (an f-string's raw text; i = 1 for an f-string)
  True,
  False,
  None,
  Ellipsis,
  List,       // a: items
  Tuple,      // a: items
  Set,        // a: items
  Dict,       // a: keys (kNoNode for `**x`), b: values
  Attr,       // a: [object], s: attribute
  Call,       // a: [callee, positional...], b: Keyword nodes
  Keyword,    // s: name ("" for **x), a: [value]
  Starred,    // a: [value] (`*x`)
  Subscript,  // a: [object, index]
  Slice,      // a: [lower, upper, step] (kNoNode when absent)
  Unary,      // s: "-", "+", "~", "not"; a: [operand]
  Binary,     // s: operator; a: [lhs, rhs]
  BoolOp,     // s: "and" / "or"; a: [lhs, rhs]
  Compare,    // s: operator ("<", "in", "not in", "is", "is not", ...); a: [lhs, rhs]
  IfExp,      // a: [condition, then, else]
  Lambda,     // a: [body], b: Param nodes
  Comp,       // s: "list" / "gen" / "set" / "dict"; a: [element (, value)], b: CompFor nodes
  CompFor,    // a: [target, iterable, conditions...]
  // ---- statements
  ExprStmt,   // a: [value]
  Assign,     // a: targets (a = b = v has two), b: [value]
  AugAssign,  // s: operator ("+"), a: [target, value]
  AnnAssign,  // a: [target, annotation, value or kNoNode]
  Def,        // s: name, a: Param nodes, b: body, c: decorators
  Param,      // s: name, a: [default or kNoNode], i: 0 plain, 1 *args, 2 **kwargs
  Class,      // s: name, a: bases, b: body, c: decorators
  With,       // a: WithItem nodes, b: body
  WithItem,   // a: [context, target or kNoNode]
  For,        // a: [target, iterable], b: body, c: else body
  While,      // a: [condition], b: body, c: else body
  If,         // a: [condition], b: body, c: else body (an elif is an If in it)
  Try,        // b: body, a: Handler nodes, c: finally body
  Handler,    // a: [type or kNoNode], s: name, b: body
  Return,     // a: [value] or empty
  Import,     // a: Alias nodes; s: the module for `from M import ...` ("" for `import`)
  Alias,      // s: dotted name, s2: the `as` name ("" when none)
  Pass,
  Break,
  Continue,
  Assert,     // a: [test, message?]
  Del,        // a: targets
  Global,     // (names unused)
  Raise,      // a: [exception?]
  Match,      // a: [subject], b: MatchCase nodes
  MatchCase,  // a: [pattern, guard or kNoNode], s: the `as` name ("" when none), b: body
};

struct Node {
  NK k = NK::Pass;
  uint32_t off = 0;  // byte offset of the construct in the text
  int64_t i = 0;
  double f = 0;
  std::string s, s2;
  std::vector<NodeId> a, b, c;
};

struct Module {
  std::vector<Node> nodes;
  std::vector<NodeId> body;
  const Node& operator[](NodeId n) const { return nodes[n]; }
};

}  // namespace fc::py
