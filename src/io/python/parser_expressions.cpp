// The Python parser's expressions (parser_impl.h): operator precedence from conditional
// expressions down to atoms, calls, subscripts, displays and comprehensions.
#include <string>
#include <utility>
#include <vector>

#include "io/python/parser_impl.h"

namespace fc::py::detail {

NodeId Parser::exprList(bool allow_star) {
  return commaList([&] { return allow_star && isOp("*") ? starred() : namedExpr(); },
                   [&] { return atStatementEnd() || isOp("=") || isOp(")") || isOp(":"); });
}

NodeId Parser::targetList() {
  return commaList([&] { return targetAtom(); }, [&] { return isName("in"); });
}

NodeId Parser::targetAtom() {
  NodeId n = isOp("*") ? starred() : orExpr();
  checkTarget(n);
  return n;
}

NodeId Parser::starred() {
  uint32_t off = peek().off;
  expectOp("*");
  NodeId v = orExpr();
  NodeId s = make(NK::Starred, off);
  N(s).a.push_back(v);
  return s;
}

NodeId Parser::namedExpr() {
  if (peek().kind == TokKind::Name && isOp(":=", 1)) p_ += 2;
  return expr();
}

NodeId Parser::expr() {
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

NodeId Parser::lambda() {
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

NodeId Parser::orTest() { return boolOp(true); }

NodeId Parser::boolOp(bool is_or) {
  NodeId l = is_or ? boolOp(false) : notTest();
  while (isName(is_or ? "or" : "and")) {
    uint32_t off = peek().off;
    ++p_;
    NodeId r = is_or ? boolOp(false) : notTest();
    l = opNode(NK::BoolOp, off, is_or ? "or" : "and", {l, r});
  }
  return l;
}

NodeId Parser::notTest() {
  if (isName("not")) {
    Depth d(*this);
    uint32_t off = peek().off;
    ++p_;
    NodeId v = notTest();
    return opNode(NK::Unary, off, "not", {v});
  }
  return comparison();
}

NodeId Parser::comparison() {
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

NodeId Parser::binaryLevel(int level) {
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

NodeId Parser::orExpr() { return binaryLevel(0); }

NodeId Parser::unary() {
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

NodeId Parser::power() {
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

NodeId Parser::primary() {
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

NodeId Parser::call(NodeId callee) {
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

NodeId Parser::subscriptList() {
  return commaList([&] { return subscriptItem(); }, [&] { return isOp("]"); });
}

NodeId Parser::subscriptItem() {
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

NodeId Parser::comprehensionIn(const char* kind, NodeId elt, NodeId value, uint32_t off,
                               std::string_view close) {
  NodeId g = comprehension(kind, elt, value, off);
  expectOp(close);
  return g;
}

NodeId Parser::comprehension(const char* kind, NodeId elt, NodeId value, uint32_t off) {
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

NodeId Parser::atom() {
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

void Parser::dictEntry(NodeId d, NodeId key, NodeId value) {
  N(d).a.push_back(key);
  N(d).b.push_back(value);
}

NodeId Parser::dictRest(NodeId d0) {
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

}  // namespace fc::py::detail
