// The Python parser's state and rules (parser.h is its interface): statements are parsed in
// parser.cpp, expressions in parser_expressions.cpp. Internal to the Python importer.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "io/python/parser.h"

namespace fc::py::detail {

struct Stop {};  // unwinds the parse after the first error

class Parser {
 public:
  Parser(const std::vector<Token>& t, Module& m, ParseError& err) : t_(t), m_(m), err_(err) {}

  bool run();

 private:
  // ---- tokens
  const Token& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool isOp(std::string_view s, size_t k = 0) const { return peek(k).kind == TokKind::Op && peek(k).s == s; }
  bool isName(std::string_view s, size_t k = 0) const {
    return peek(k).kind == TokKind::Name && peek(k).s == s;
  }
  bool acceptOp(std::string_view s) {
    if (!isOp(s)) return false;
    ++p_;
    return true;
  }
  bool acceptName(std::string_view s) {
    if (!isName(s)) return false;
    ++p_;
    return true;
  }
  void expectOp(std::string_view s) {
    if (!acceptOp(s)) fail("expected '" + std::string(s) + "', found " + found());
  }
  std::string found() const { return describeToken(peek()); }
  [[noreturn]] void fail(std::string m) { failAt(std::move(m), peek().off); }
  [[noreturn]] void failAt(std::string m, uint32_t off) {
    err_.message = std::move(m);
    err_.off = off;
    throw Stop{};
  }
  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth)
        p_.fail("expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  NodeId make(NK k, uint32_t off) {
    Node n;
    n.k = k;
    n.off = off;
    m_.nodes.push_back(std::move(n));
    return static_cast<NodeId>(m_.nodes.size() - 1);
  }
  Node& N(NodeId id) { return m_.nodes[id]; }
  // An operator node: kind `k` at `off`, the operator's spelling `op`, its operands `a`.
  NodeId opNode(NK k, uint32_t off, std::string op, std::vector<NodeId> a) {
    NodeId n = make(k, off);
    N(n).s = std::move(op);
    N(n).a = std::move(a);
    return n;
  }

  // ---- statements (parser.cpp)
  void block(std::vector<NodeId>& body);
  void statement(std::vector<NodeId>& body);
  void simpleStatements(std::vector<NodeId>& body);
  NodeId simple();
  bool atStatementEnd() const;
  void checkTarget(NodeId n);
  std::string dottedName();
  // An optional `as NAME` after an imported name: NAME becomes the alias's `s2`.
  void aliasAs(NodeId al);
  NodeId importStmt(uint32_t off);
  NodeId fromImport(uint32_t off);
  // An element of a display or a tuple: `*x` or an expression.
  NodeId element();
  // The elements after the first of `seq`, each after a ',' (a trailing ',' allowed), then
  // `close`.
  NodeId restOfSequence(NodeId seq, std::string_view close);
  // `def NAME` / `class NAME` (the keyword is the current token): the node,
  // with its name and decorators.
  NodeId namedHeader(NK kind, std::vector<NodeId> decos, const char* what);
  NodeId def(std::vector<NodeId> decos);
  std::vector<NodeId> paramList(std::string_view close);
  NodeId classDef(std::vector<NodeId> decos);
  NodeId ifStmt();
  // `for target in iterable:` and `while condition:`, each with an optional `else:` block.
  NodeId loopStmt();
  NodeId withStmt();
  // `with (a as b, c as d):` — a parenthesized item list has `as` at bracket depth one.
  bool parenthesizedWith() const;
  NodeId tryStmt();
  // `match` is a soft keyword: whether the statement at the current token is a match statement
  // (`match subject:` then an indented `case`), not a simple statement using the name.
  bool matchAhead();
  NodeId matchStmt();

  // ---- expressions (parser_expressions.cpp)
  // A comma list; a tuple when there is a comma (`a, b = f()`, `return x, y`).
  NodeId exprList(bool allow_star = true);
  NodeId targetList();
  NodeId targetAtom();
  NodeId starred();
  // `name := value` is read as its value (the binding is not modelled).
  NodeId namedExpr();
  NodeId expr();
  NodeId lambda();
  NodeId orTest();
  NodeId boolOp(bool is_or);
  NodeId notTest();
  NodeId comparison();
  NodeId binaryLevel(int level);
  NodeId orExpr();
  NodeId unary();
  NodeId power();
  NodeId primary();
  NodeId call(NodeId callee);
  NodeId subscriptList();
  NodeId subscriptItem();
  // A comprehension inside brackets (its `for` is the current token), then the closing `close`.
  NodeId comprehensionIn(const char* kind, NodeId elt, NodeId value, uint32_t off, std::string_view close);
  NodeId comprehension(const char* kind, NodeId elt, NodeId value, uint32_t off);
  NodeId atom();
  // One entry of a dict display: `key: value`, or `**value` with the key kNoNode.
  void dictEntry(NodeId d, NodeId key, NodeId value);
  NodeId dictRest(NodeId d0);

  // Items read by `item` separated by commas: the item alone, or a tuple of
  // them when a comma follows (a trailing comma before `ends()` is allowed).
  template <class Item, class End>
  NodeId commaList(Item&& item, End&& ends) {
    uint32_t off = peek().off;
    NodeId first = item();
    if (!isOp(",")) return first;
    NodeId t = make(NK::Tuple, off);
    N(t).a.push_back(first);
    while (acceptOp(",")) {
      if (ends()) break;
      NodeId k = item();
      N(t).a.push_back(k);
    }
    return t;
  }

  const std::vector<Token>& t_;
  Module& m_;
  ParseError& err_;
  size_t p_ = 0;
  int depth_ = 0;   // brackets, calls, subscripts, unary operators, lambdas
  int blocks_ = 0;  // statements inside blocks
};

}  // namespace fc::py::detail
