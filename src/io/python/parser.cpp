// Recursive-descent parser of the Python subset (see parser.h): the module and its statements;
// expressions are in parser_expressions.cpp.
#include "io/python/parser.h"

#include <string>
#include <utility>
#include <vector>

#include "io/python/parser_impl.h"

namespace fc::py {
namespace detail {

bool Parser::run() {
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

void Parser::block(std::vector<NodeId>& body) {
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

void Parser::statement(std::vector<NodeId>& body) {
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
    if (w == "match" && matchAhead()) return body.push_back(matchStmt());
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

void Parser::simpleStatements(std::vector<NodeId>& body) {
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

NodeId Parser::simple() {
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

bool Parser::atStatementEnd() const {
  return peek().kind == TokKind::Newline || peek().kind == TokKind::End || isOp(";") ||
         peek().kind == TokKind::Dedent;
}

void Parser::checkTarget(NodeId n) {
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

std::string Parser::dottedName() {
  if (peek().kind != TokKind::Name) fail("expected a module name, found " + found());
  std::string s(peek().s);
  ++p_;
  while (isOp(".") && peek(1).kind == TokKind::Name) {
    s += "." + std::string(peek(1).s);
    p_ += 2;
  }
  return s;
}

void Parser::aliasAs(NodeId al) {
  if (!acceptName("as")) return;
  if (peek().kind != TokKind::Name) fail("expected a name after `as`");
  N(al).s2 = std::string(peek().s);
  ++p_;
}

NodeId Parser::importStmt(uint32_t off) {
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

NodeId Parser::fromImport(uint32_t off) {
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

NodeId Parser::element() { return isOp("*") ? starred() : namedExpr(); }

NodeId Parser::restOfSequence(NodeId seq, std::string_view close) {
  while (acceptOp(",")) {
    if (isOp(close)) break;
    NodeId k = element();
    N(seq).a.push_back(k);
  }
  expectOp(close);
  return seq;
}

NodeId Parser::namedHeader(NK kind, std::vector<NodeId> decos, const char* what) {
  uint32_t off = peek().off;
  ++p_;
  if (peek().kind != TokKind::Name) fail(std::string("expected a ") + what + " name, found " + found());
  NodeId r = make(kind, off);
  N(r).s = std::string(peek().s);
  N(r).c = std::move(decos);
  ++p_;
  return r;
}

NodeId Parser::def(std::vector<NodeId> decos) {
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

std::vector<NodeId> Parser::paramList(std::string_view close) {
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

NodeId Parser::classDef(std::vector<NodeId> decos) {
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

NodeId Parser::ifStmt() {
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

NodeId Parser::loopStmt() {
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

NodeId Parser::withStmt() {
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

bool Parser::parenthesizedWith() const {
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

NodeId Parser::tryStmt() {
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

bool Parser::matchAhead() {
  const size_t p = p_, nodes = m_.nodes.size();
  const ParseError saved = err_;
  bool ok = false;
  try {
    ++p_;
    exprList();
    ok = acceptOp(":") && peek().kind == TokKind::Newline;
    size_t k = 0;
    while (ok && peek(k).kind == TokKind::Newline) ++k;
    ok = ok && peek(k).kind == TokKind::Indent && isName("case", k + 1);
  } catch (const Stop&) {
    ok = false;
  }
  p_ = p;
  m_.nodes.resize(nodes);
  err_ = saved;
  return ok;
}

// `match subject:` and its `case pattern [as name] [if guard]:` blocks. A pattern is read as an
// expression (`A.B | C`, `[x, *rest]`, `-1`): the interpreter gives each form its pattern meaning.
NodeId Parser::matchStmt() {
  const uint32_t off = peek().off;
  ++p_;  // `match`
  const NodeId r = make(NK::Match, off);
  const NodeId subject = exprList();
  N(r).a.push_back(subject);
  expectOp(":");
  while (peek().kind == TokKind::Newline) ++p_;
  ++p_;  // the indent (matchAhead saw it)
  while (peek().kind != TokKind::Dedent && peek().kind != TokKind::End) {
    if (peek().kind == TokKind::Newline) {
      ++p_;
      continue;
    }
    if (!isName("case")) fail("expected `case` in the `match` block, found " + found());
    const uint32_t coff = peek().off;
    ++p_;
    const NodeId c = make(NK::MatchCase, coff);
    const NodeId pattern = commaList([&] { return isOp("*") ? starred() : orExpr(); },
                                     [&] { return isName("if") || isName("as") || isOp(":"); });
    std::string as;
    if (acceptName("as")) {
      if (peek().kind != TokKind::Name) fail("expected a name after `as`, found " + found());
      as = peek().s;
      ++p_;
    }
    const NodeId guard = acceptName("if") ? namedExpr() : kNoNode;
    expectOp(":");
    std::vector<NodeId> body;
    block(body);
    N(c).a = {pattern, guard};
    N(c).s = std::move(as);
    N(c).b = std::move(body);
    N(r).b.push_back(c);
  }
  if (peek().kind == TokKind::Dedent) ++p_;
  return r;
}

}  // namespace detail

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
  return detail::Parser(toks, m, err).run();
}

}  // namespace fc::py
