// Recursive-descent parser of the Python subset (see parser.h).
#include "io/python/parser.h"

#include <utility>

namespace fc::py {
namespace {

struct Stop {};  // unwinds the parse after the first error

class Parser {
 public:
  Parser(const std::vector<Token>& t, Module& m, ParseError& err) : t_(t), m_(m), err_(err) {}

  bool run() {
    try {
      while (peek().kind != TokKind::End) {
        if (peek().kind == TokKind::Newline) {
          ++p_;
          continue;
        }
        if (peek().kind == TokKind::Indent) fail("unexpected indentation");
        statement(m_.body);
      }
    } catch (const Stop&) {
      return false;
    }
    return true;
  }

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

  // ---- statements
  void block(std::vector<NodeId>& body) {
    if (peek().kind != TokKind::Newline) {  // `if x: y` on one line
      simpleStatements(body);
      return;
    }
    ++p_;
    while (peek().kind == TokKind::Newline) ++p_;
    if (peek().kind != TokKind::Indent) fail("expected an indented block, found " + found());
    ++p_;
    while (peek().kind != TokKind::Dedent && peek().kind != TokKind::End) {
      if (peek().kind == TokKind::Newline) {
        ++p_;
        continue;
      }
      statement(body);
    }
    if (peek().kind == TokKind::Dedent) ++p_;
  }

  void statement(std::vector<NodeId>& body) {
    if (++blocks_ > kMaxDepth)
      fail("blocks nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    struct Leave {
      int& b;
      ~Leave() { --b; }
    } leave{blocks_};
    const Token& t = peek();
    if (t.kind == TokKind::Name) {
      std::string_view w = t.s;
      if (w == "def") return body.push_back(def({}));
      if (w == "class") return body.push_back(classDef({}));
      if (w == "if") return body.push_back(ifStmt());
      if (w == "for" || w == "while") return body.push_back(loopStmt());
      if (w == "with") return body.push_back(withStmt());
      if (w == "try") return body.push_back(tryStmt());
      if (w == "async") fail("`async` is not supported");
    }
    if (isOp("@")) {
      std::vector<NodeId> decos;
      while (acceptOp("@")) {
        decos.push_back(expr());
        if (peek().kind != TokKind::Newline) fail("expected the end of the decorator line, found " + found());
        ++p_;
      }
      if (isName("def")) return body.push_back(def(decos));
      if (isName("class")) return body.push_back(classDef(decos));
      fail("a decorator must precede `def` or `class`");
    }
    simpleStatements(body);
  }

  void simpleStatements(std::vector<NodeId>& body) {
    while (true) {
      body.push_back(simple());
      if (acceptOp(";")) {
        if (peek().kind == TokKind::Newline || peek().kind == TokKind::End) break;
        continue;
      }
      break;
    }
    if (peek().kind == TokKind::Newline) {
      ++p_;
      return;
    }
    if (peek().kind == TokKind::End || peek().kind == TokKind::Dedent) return;
    fail("unexpected " + found() + " after the statement");
  }

  NodeId simple() {
    const Token& t = peek();
    uint32_t off = t.off;
    if (t.kind == TokKind::Name) {
      std::string_view w = t.s;
      if (w == "pass") return ++p_, make(NK::Pass, off);
      if (w == "break") return ++p_, make(NK::Break, off);
      if (w == "continue") return ++p_, make(NK::Continue, off);
      if (w == "return") {
        ++p_;
        NodeId r = make(NK::Return, off);
        if (!atStatementEnd()) {
          NodeId v = exprList();
          N(r).a.push_back(v);
        }
        return r;
      }
      if (w == "import") return importStmt(off);
      if (w == "from") return fromImport(off);
      if (w == "assert" || w == "raise" || w == "del") {
        ++p_;
        NodeId r = make(w == "assert" ? NK::Assert : w == "raise" ? NK::Raise : NK::Del, off);
        if (!atStatementEnd()) {
          NodeId v = exprList();
          N(r).a.push_back(v);
          if (acceptOp(",") || acceptName("from")) {
            NodeId m = expr();
            N(r).a.push_back(m);
          }
        }
        return r;
      }
      if (w == "global" || w == "nonlocal") {
        ++p_;
        while (peek().kind == TokKind::Name) {
          ++p_;
          if (!acceptOp(",")) break;
        }
        return make(NK::Global, off);
      }
    }
    NodeId first = exprList(true);
    if (acceptOp("=")) {
      NodeId r = make(NK::Assign, off);
      N(r).a.push_back(first);
      NodeId v = exprList(true);
      while (acceptOp("=")) {
        N(r).a.push_back(v);
        v = exprList(true);
      }
      N(r).b.push_back(v);
      for (NodeId tg : N(r).a) checkTarget(tg);
      return r;
    }
    if (peek().kind == TokKind::Op && peek().s.size() >= 2 && peek().s.back() == '=' && peek().s != "==" &&
        peek().s != "<=" && peek().s != ">=" && peek().s != "!=") {
      std::string op(peek().s.substr(0, peek().s.size() - 1));
      ++p_;
      checkTarget(first);
      NodeId r = make(NK::AugAssign, off);
      N(r).s = op;
      NodeId v = exprList(true);
      N(r).a = {first, v};
      return r;
    }
    if (acceptOp(":")) {
      checkTarget(first);
      NodeId ann = expr();
      NodeId v = kNoNode;
      if (acceptOp("=")) v = exprList(true);
      NodeId r = make(NK::AnnAssign, off);
      N(r).a = {first, ann, v};
      return r;
    }
    NodeId r = make(NK::ExprStmt, off);
    N(r).a.push_back(first);
    return r;
  }

  bool atStatementEnd() const {
    return peek().kind == TokKind::Newline || peek().kind == TokKind::End || isOp(";") ||
           peek().kind == TokKind::Dedent;
  }

  void checkTarget(NodeId n) {
    const Node& x = N(n);
    switch (x.k) {
      case NK::Name:
      case NK::Attr:
      case NK::Subscript: return;
      case NK::Starred: return checkTarget(x.a[0]);
      case NK::Tuple:
      case NK::List:
        for (NodeId k : x.a) checkTarget(k);
        return;
      default: failAt("cannot assign to this expression", x.off);
    }
  }

  std::string dottedName() {
    if (peek().kind != TokKind::Name) fail("expected a module name, found " + found());
    std::string s(peek().s);
    ++p_;
    while (isOp(".") && peek(1).kind == TokKind::Name) {
      s += "." + std::string(peek(1).s);
      p_ += 2;
    }
    return s;
  }

  // An optional `as NAME` after an imported name: NAME becomes the alias's `s2`.
  void aliasAs(NodeId al) {
    if (!acceptName("as")) return;
    if (peek().kind != TokKind::Name) fail("expected a name after `as`");
    N(al).s2 = std::string(peek().s);
    ++p_;
  }

  NodeId importStmt(uint32_t off) {
    ++p_;
    NodeId r = make(NK::Import, off);
    do {
      NodeId al = make(NK::Alias, peek().off);
      std::string name = dottedName();
      N(al).s = std::move(name);
      aliasAs(al);
      N(r).a.push_back(al);
    } while (acceptOp(","));
    return r;
  }

  NodeId fromImport(uint32_t off) {
    ++p_;
    std::string mod;
    while (isOp(".") || isOp("...")) {
      mod += std::string(peek().s);
      ++p_;
    }
    if (peek().kind == TokKind::Name && !isName("import")) mod += dottedName();
    if (!acceptName("import")) fail("expected `import`, found " + found());
    NodeId r = make(NK::Import, off);
    N(r).s = mod.empty() ? "." : mod;
    bool paren = acceptOp("(");
    if (acceptOp("*")) {
      NodeId al = make(NK::Alias, off);
      N(al).s = "*";
      N(r).a.push_back(al);
    } else {
      do {
        if (paren && isOp(")")) break;
        if (peek().kind != TokKind::Name) fail("expected a name to import, found " + found());
        NodeId al = make(NK::Alias, peek().off);
        N(al).s = std::string(peek().s);
        ++p_;
        aliasAs(al);
        N(r).a.push_back(al);
      } while (acceptOp(","));
    }
    if (paren) expectOp(")");
    return r;
  }

  // An element of a display or a tuple: `*x` or an expression.
  NodeId element() { return isOp("*") ? starred() : namedExpr(); }

  // The elements after the first of `seq`, each after a ',' (a trailing ',' allowed), then
  // `close`.
  NodeId restOfSequence(NodeId seq, std::string_view close) {
    while (acceptOp(",")) {
      if (isOp(close)) break;
      NodeId k = element();
      N(seq).a.push_back(k);
    }
    expectOp(close);
    return seq;
  }

  // `def NAME` / `class NAME` (the keyword is the current token): the node,
  // with its name and decorators.
  NodeId namedHeader(NK kind, std::vector<NodeId> decos, const char* what) {
    uint32_t off = peek().off;
    ++p_;
    if (peek().kind != TokKind::Name) fail(std::string("expected a ") + what + " name, found " + found());
    NodeId r = make(kind, off);
    N(r).s = std::string(peek().s);
    N(r).c = std::move(decos);
    ++p_;
    return r;
  }

  NodeId def(std::vector<NodeId> decos) {
    NodeId r = namedHeader(NK::Def, std::move(decos), "function");
    expectOp("(");
    std::vector<NodeId> params = paramList(")");
    N(r).a = std::move(params);
    expectOp(")");
    if (acceptOp("->")) expr();
    expectOp(":");
    std::vector<NodeId> body;
    block(body);
    N(r).b = std::move(body);
    return r;
  }

  std::vector<NodeId> paramList(std::string_view close) {
    std::vector<NodeId> ps;
    while (!isOp(close)) {
      uint32_t off = peek().off;
      int kind = 0;
      if (acceptOp("**"))
        kind = 2;
      else if (acceptOp("*"))
        kind = 1;
      else if (acceptOp("/")) {
        if (!acceptOp(",")) break;
        continue;
      }
      if (kind == 1 && (isOp(",") || isOp(close))) {  // bare `*`: keyword-only marker
        if (!acceptOp(",")) break;
        continue;
      }
      if (peek().kind != TokKind::Name) fail("expected a parameter name, found " + found());
      NodeId pn = make(NK::Param, off);
      N(pn).s = std::string(peek().s);
      N(pn).i = kind;
      ++p_;
      NodeId dflt = kNoNode;
      if (close == ")" && acceptOp(":")) expr();  // annotation
      if (acceptOp("=")) dflt = expr();
      N(pn).a.push_back(dflt);
      ps.push_back(pn);
      if (!acceptOp(",")) break;
    }
    return ps;
  }

  NodeId classDef(std::vector<NodeId> decos) {
    NodeId r = namedHeader(NK::Class, std::move(decos), "class");
    if (acceptOp("(")) {
      std::vector<NodeId> bases;
      while (!isOp(")")) {
        if (peek().kind == TokKind::Name && isOp("=", 1)) {  // metaclass=...
          p_ += 2;
          expr();
        } else {
          bases.push_back(expr());
        }
        if (!acceptOp(",")) break;
      }
      expectOp(")");
      N(r).a = std::move(bases);
    }
    expectOp(":");
    std::vector<NodeId> body;
    block(body);
    N(r).b = std::move(body);
    return r;
  }

  NodeId ifStmt() {
    uint32_t off = peek().off;
    ++p_;  // `if` or `elif`
    NodeId r = make(NK::If, off);
    NodeId cond = namedExpr();
    N(r).a.push_back(cond);
    expectOp(":");
    std::vector<NodeId> body;
    block(body);
    N(r).b = std::move(body);
    std::vector<NodeId> orelse;
    if (isName("elif")) {
      orelse.push_back(ifStmt());
    } else if (acceptName("else")) {
      expectOp(":");
      block(orelse);
    }
    N(r).c = std::move(orelse);
    return r;
  }

  // `for target in iterable:` and `while condition:`, each with an optional `else:` block.
  NodeId loopStmt() {
    uint32_t off = peek().off;
    bool is_for = isName("for");
    ++p_;
    NodeId r = make(is_for ? NK::For : NK::While, off);
    if (is_for) {
      NodeId target = targetList();
      if (!acceptName("in")) fail("expected `in`, found " + found());
      NodeId it = exprList();
      N(r).a = {target, it};
    } else {
      NodeId cond = namedExpr();
      N(r).a = {cond};
    }
    expectOp(":");
    std::vector<NodeId> body, orelse;
    block(body);
    if (acceptName("else")) {
      expectOp(":");
      block(orelse);
    }
    N(r).b = std::move(body);
    N(r).c = std::move(orelse);
    return r;
  }

  NodeId withStmt() {
    uint32_t off = peek().off;
    ++p_;
    NodeId r = make(NK::With, off);
    bool paren = isOp("(") && parenthesizedWith();
    if (paren) ++p_;
    do {
      if (paren && isOp(")")) break;
      NodeId item = make(NK::WithItem, peek().off);
      NodeId ctx = expr();
      NodeId target = kNoNode;
      if (acceptName("as")) target = targetAtom();
      N(item).a = {ctx, target};
      N(r).a.push_back(item);
    } while (acceptOp(","));
    if (paren) expectOp(")");
    expectOp(":");
    std::vector<NodeId> body;
    block(body);
    N(r).b = std::move(body);
    return r;
  }
  // `with (a as b, c as d):` — a parenthesized item list has `as` at bracket depth one.
  bool parenthesizedWith() const {
    int depth = 0;
    for (size_t k = p_; k < t_.size(); ++k) {
      const Token& t = t_[k];
      if (t.kind == TokKind::Op && (t.s == "(" || t.s == "[" || t.s == "{")) ++depth;
      if (t.kind == TokKind::Op && (t.s == ")" || t.s == "]" || t.s == "}")) {
        if (--depth == 0) return false;
      }
      if (depth == 1 && t.kind == TokKind::Name && t.s == "as") return true;
      if (t.kind == TokKind::Newline || t.kind == TokKind::End) return false;
    }
    return false;
  }

  NodeId tryStmt() {
    uint32_t off = peek().off;
    ++p_;
    expectOp(":");
    NodeId r = make(NK::Try, off);
    std::vector<NodeId> body, fin;
    block(body);
    while (isName("except")) {
      NodeId h = make(NK::Handler, peek().off);
      ++p_;
      acceptOp("*");
      NodeId type = kNoNode;
      if (!isOp(":")) type = expr();
      if (acceptName("as")) {
        if (peek().kind != TokKind::Name) fail("expected a name after `as`");
        N(h).s = std::string(peek().s);
        ++p_;
      } else if (acceptOp(",")) {
        expr();
      }
      N(h).a.push_back(type);
      expectOp(":");
      std::vector<NodeId> hb;
      block(hb);
      N(h).b = std::move(hb);
      N(r).a.push_back(h);
    }
    if (acceptName("else")) {
      expectOp(":");
      block(body);
    }
    if (acceptName("finally")) {
      expectOp(":");
      block(fin);
    }
    if (N(r).a.empty() && fin.empty()) fail("`try` needs an `except` or `finally` block");
    N(r).b = std::move(body);
    N(r).c = std::move(fin);
    return r;
  }

  // ---- expressions
  // A comma list; a tuple when there is a comma (`a, b = f()`, `return x, y`).
  NodeId exprList(bool allow_star = true) {
    return commaList([&] { return allow_star && isOp("*") ? starred() : namedExpr(); },
                     [&] { return atStatementEnd() || isOp("=") || isOp(")") || isOp(":"); });
  }

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

  NodeId targetList() {
    return commaList([&] { return targetAtom(); }, [&] { return isName("in"); });
  }
  NodeId targetAtom() {
    NodeId n = isOp("*") ? starred() : orExpr();
    checkTarget(n);
    return n;
  }

  NodeId starred() {
    uint32_t off = peek().off;
    expectOp("*");
    NodeId v = orExpr();
    NodeId s = make(NK::Starred, off);
    N(s).a.push_back(v);
    return s;
  }

  // `name := value` is read as its value (the binding is not modelled).
  NodeId namedExpr() {
    if (peek().kind == TokKind::Name && isOp(":=", 1)) p_ += 2;
    return expr();
  }

  NodeId expr() {
    if (isName("lambda")) return lambda();
    NodeId body = orTest();
    if (isName("if")) {
      // Not in a comprehension's condition position (handled by the caller).
      uint32_t off = N(body).off;
      ++p_;
      NodeId cond = orTest();
      if (!acceptName("else")) fail("expected `else` in the conditional expression, found " + found());
      NodeId other = expr();
      NodeId r = make(NK::IfExp, off);
      N(r).a = {cond, body, other};
      return r;
    }
    return body;
  }

  NodeId lambda() {
    Depth d(*this);
    uint32_t off = peek().off;
    ++p_;
    NodeId r = make(NK::Lambda, off);
    std::vector<NodeId> ps = paramList(":");
    expectOp(":");
    NodeId body = expr();
    N(r).a.push_back(body);
    N(r).b = std::move(ps);
    return r;
  }

  NodeId orTest() { return boolOp(true); }
  NodeId boolOp(bool is_or) {
    NodeId l = is_or ? boolOp(false) : notTest();
    while (isName(is_or ? "or" : "and")) {
      uint32_t off = peek().off;
      ++p_;
      NodeId r = is_or ? boolOp(false) : notTest();
      l = opNode(NK::BoolOp, off, is_or ? "or" : "and", {l, r});
    }
    return l;
  }
  NodeId notTest() {
    if (isName("not")) {
      Depth d(*this);
      uint32_t off = peek().off;
      ++p_;
      NodeId v = notTest();
      return opNode(NK::Unary, off, "not", {v});
    }
    return comparison();
  }
  NodeId comparison() {
    NodeId l = orExpr();
    while (true) {
      std::string op;
      uint32_t off = peek().off;
      if (peek().kind == TokKind::Op && (peek().s == "<" || peek().s == ">" || peek().s == "==" ||
                                         peek().s == ">=" || peek().s == "<=" || peek().s == "!=")) {
        op = std::string(peek().s);
        ++p_;
      } else if (isName("in")) {
        op = "in";
        ++p_;
      } else if (isName("not") && isName("in", 1)) {
        op = "not in";
        p_ += 2;
      } else if (isName("is")) {
        ++p_;
        op = acceptName("not") ? "is not" : "is";
      } else {
        return l;
      }
      NodeId r = orExpr();
      l = opNode(NK::Compare, off, std::move(op), {l, r});
    }
  }

  NodeId binaryLevel(int level) {
    static const std::vector<std::vector<std::string_view>> levels = {
        {"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}};
    if (level >= static_cast<int>(levels.size())) return unary();
    NodeId l = binaryLevel(level + 1);
    while (true) {
      bool matched = false;
      for (std::string_view op : levels[static_cast<size_t>(level)])
        if (isOp(op)) {
          uint32_t off = peek().off;
          ++p_;
          NodeId r = binaryLevel(level + 1);
          l = opNode(NK::Binary, off, std::string(op), {l, r});
          matched = true;
          break;
        }
      if (!matched) return l;
    }
  }
  NodeId orExpr() { return binaryLevel(0); }

  NodeId unary() {
    if (isOp("-") || isOp("+") || isOp("~")) {
      Depth d(*this);
      uint32_t off = peek().off;
      std::string op(peek().s);
      ++p_;
      NodeId v = unary();
      return opNode(NK::Unary, off, std::move(op), {v});
    }
    return power();
  }
  NodeId power() {
    NodeId base = primary();
    if (isOp("**")) {
      Depth d(*this);
      uint32_t off = peek().off;
      ++p_;
      NodeId e = unary();
      return opNode(NK::Binary, off, "**", {base, e});
    }
    return base;
  }

  NodeId primary() {
    NodeId n = atom();
    while (true) {
      if (isOp(".")) {
        ++p_;
        if (peek().kind != TokKind::Name) fail("expected an attribute name after '.', found " + found());
        NodeId a = make(NK::Attr, N(n).off);  // located at the start of the whole expression
        N(a).s = std::string(peek().s);
        N(a).a.push_back(n);
        ++p_;
        n = a;
      } else if (isOp("(")) {
        Depth d(*this);
        n = call(n);
      } else if (isOp("[")) {
        Depth d(*this);
        uint32_t off = N(n).off;
        ++p_;
        NodeId idx = subscriptList();
        expectOp("]");
        NodeId s = make(NK::Subscript, off);
        N(s).a = {n, idx};
        n = s;
      } else {
        return n;
      }
    }
  }

  NodeId call(NodeId callee) {
    uint32_t off = N(callee).off;
    expectOp("(");
    NodeId c = make(NK::Call, off);
    N(c).a.push_back(callee);
    while (!isOp(")")) {
      uint32_t aoff = peek().off;
      if (acceptOp("**")) {
        NodeId v = expr();
        NodeId k = make(NK::Keyword, aoff);
        N(k).a.push_back(v);
        N(c).b.push_back(k);
      } else if (isOp("*")) {
        NodeId s = starred();
        N(c).a.push_back(s);
      } else if (peek().kind == TokKind::Name && isOp("=", 1)) {
        NodeId k = make(NK::Keyword, aoff);
        N(k).s = std::string(peek().s);
        p_ += 2;
        NodeId v = expr();
        N(k).a.push_back(v);
        N(c).b.push_back(k);
      } else {
        NodeId v = namedExpr();
        if (isName("for")) v = comprehension("gen", v, kNoNode, aoff);
        if (!N(c).b.empty()) failAt("a positional argument follows a keyword argument", aoff);
        N(c).a.push_back(v);
      }
      if (!acceptOp(",")) break;
    }
    expectOp(")");
    return c;
  }

  NodeId subscriptList() {
    return commaList([&] { return subscriptItem(); }, [&] { return isOp("]"); });
  }
  NodeId subscriptItem() {
    uint32_t off = peek().off;
    NodeId lo = kNoNode, hi = kNoNode, st = kNoNode;
    if (!isOp(":")) {
      lo = isOp("*") ? starred() : expr();
      if (!isOp(":")) return lo;
    }
    expectOp(":");
    if (!isOp(":") && !isOp("]") && !isOp(",")) hi = expr();
    if (acceptOp(":"))
      if (!isOp("]") && !isOp(",")) st = expr();
    NodeId s = make(NK::Slice, off);
    N(s).a = {lo, hi, st};
    return s;
  }

  // A comprehension inside brackets (its `for` is the current token), then the closing `close`.
  NodeId comprehensionIn(const char* kind, NodeId elt, NodeId value, uint32_t off, std::string_view close) {
    NodeId g = comprehension(kind, elt, value, off);
    expectOp(close);
    return g;
  }

  NodeId comprehension(const char* kind, NodeId elt, NodeId value, uint32_t off) {
    NodeId c = make(NK::Comp, off);
    N(c).s = kind;
    N(c).a.push_back(elt);
    if (value != kNoNode) N(c).a.push_back(value);
    while (isName("for") || (isName("async") && isName("for", 1))) {
      if (isName("async")) ++p_;
      NodeId f = make(NK::CompFor, peek().off);
      ++p_;
      NodeId target = targetList();
      if (!acceptName("in")) fail("expected `in`, found " + found());
      NodeId it = orTest();
      N(f).a = {target, it};
      while (isName("if")) {
        ++p_;
        NodeId cond = orTest();
        N(f).a.push_back(cond);
      }
      N(c).b.push_back(f);
    }
    return c;
  }

  NodeId atom() {
    const Token& t = peek();
    uint32_t off = t.off;
    switch (t.kind) {
      case TokKind::Int: {
        ++p_;
        NodeId n = make(NK::Int, off);
        N(n).i = t.i;
        return n;
      }
      case TokKind::Float:
      case TokKind::Imag: {
        ++p_;
        NodeId n = make(t.kind == TokKind::Float ? NK::Float : NK::Imag, off);
        N(n).f = t.f;
        return n;
      }
      case TokKind::Str: {
        NodeId n = make(NK::Str, off);
        while (peek().kind == TokKind::Str) {  // implicit concatenation
          N(n).s += peek().str;
          if (peek().fstring) N(n).i = 1;
          ++p_;
        }
        return n;
      }
      case TokKind::Name: {
        std::string_view w = t.s;
        if (w == "True") return ++p_, make(NK::True, off);
        if (w == "False") return ++p_, make(NK::False, off);
        if (w == "None") return ++p_, make(NK::None, off);
        if (isKeyword(w) && w != "print" && w != "exec") fail("unexpected `" + std::string(w) + "`");
        ++p_;
        NodeId n = make(NK::Name, off);
        N(n).s = std::string(w);
        return n;
      }
      case TokKind::Op: break;
      default: fail("expected an expression, found " + found());
    }
    if (acceptOp("...")) return make(NK::Ellipsis, off);
    Depth d(*this);  // one level per bracket
    if (acceptOp("(")) {
      if (acceptOp(")")) return make(NK::Tuple, off);
      NodeId first = element();
      if (isName("for")) {
        return comprehensionIn("gen", first, kNoNode, off, ")");
      }
      if (!isOp(",")) {
        expectOp(")");
        return first;  // parenthesized expression
      }
      NodeId tup = make(NK::Tuple, off);
      N(tup).a.push_back(first);
      return restOfSequence(tup, ")");
    }
    if (acceptOp("[")) {
      NodeId l = make(NK::List, off);
      if (acceptOp("]")) return l;
      NodeId first = element();
      if (isName("for")) {
        return comprehensionIn("list", first, kNoNode, off, "]");
      }
      N(l).a.push_back(first);
      return restOfSequence(l, "]");
    }
    if (acceptOp("{")) {
      if (acceptOp("}")) return make(NK::Dict, off);
      if (acceptOp("**")) {
        NodeId d0 = make(NK::Dict, off);
        NodeId v = orExpr();
        dictEntry(d0, kNoNode, v);
        return dictRest(d0);
      }
      NodeId first = isOp("*") ? starred() : expr();
      if (acceptOp(":")) {
        NodeId v = expr();
        if (isName("for")) {
          return comprehensionIn("dict", first, v, off, "}");
        }
        NodeId d0 = make(NK::Dict, off);
        dictEntry(d0, first, v);
        return dictRest(d0);
      }
      if (isName("for")) {
        return comprehensionIn("set", first, kNoNode, off, "}");
      }
      NodeId s = make(NK::Set, off);
      N(s).a.push_back(first);
      while (acceptOp(",")) {
        if (isOp("}")) break;
        NodeId k = isOp("*") ? starred() : expr();
        N(s).a.push_back(k);
      }
      expectOp("}");
      return s;
    }
    fail("expected an expression, found " + found());
  }

  // One entry of a dict display: `key: value`, or `**value` with the key kNoNode.
  void dictEntry(NodeId d, NodeId key, NodeId value) {
    N(d).a.push_back(key);
    N(d).b.push_back(value);
  }

  NodeId dictRest(NodeId d0) {
    while (acceptOp(",")) {
      if (isOp("}")) break;
      if (acceptOp("**")) {
        NodeId v = orExpr();
        dictEntry(d0, kNoNode, v);
        continue;
      }
      NodeId k = expr();
      expectOp(":");
      NodeId v = expr();
      dictEntry(d0, k, v);
    }
    expectOp("}");
    return d0;
  }

  const std::vector<Token>& t_;
  Module& m_;
  ParseError& err_;
  size_t p_ = 0;
  int depth_ = 0;   // brackets, calls, subscripts, unary operators, lambdas
  int blocks_ = 0;  // statements inside blocks
};

}  // namespace

bool parseModule(std::string_view text, Module& m, ParseError& err) {
  std::vector<Token> toks;
  LexError le;
  if (!tokenize(text, toks, le)) {
    err.message = le.message;
    err.off = le.off;
    return false;
  }
  m.nodes.clear();
  m.body.clear();
  m.nodes.reserve(toks.size() + 16);
  return Parser(toks, m, err).run();
}

}  // namespace fc::py
