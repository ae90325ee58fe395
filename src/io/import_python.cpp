// Python repro importer (see import_python.h): tokenizer, expression parser with a depth limit,
// and an interpreter of FusionDefinition calls onto ImportBuilder.
#include "io/import_python.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/import_builder.h"

namespace fc {
namespace {

constexpr int kMaxDepth = 64;

// ------------------------------------------------------------------ tokens
struct Tok {
  enum K { Name, Int, Float, Str, Op, Newline, End } k = End;
  std::string s;
  int64_t i = 0;
  double f = 0;
  size_t off = 0;
  int indent = 0;  // column of the first token of its line (0-based), for Newline-following tokens
};

class Lexer {
 public:
  Lexer(std::string_view t, std::vector<Tok>& out, std::string& err, size_t& err_off)
      : t_(t), out_(out), err_(err), err_off_(err_off) {}

  bool run() {
    size_t i = 0, n = t_.size();
    int depth = 0;
    std::vector<size_t> open;  // offsets of unclosed brackets
    bool line_start = true;
    int indent = 0;
    while (i < n) {
      char c = t_[i];
      if (line_start) {
        indent = 0;
        while (i < n && (t_[i] == ' ' || t_[i] == '\t')) {
          ++indent;
          ++i;
        }
        line_start = false;
        continue;
      }
      if (c == '#') {
        while (i < n && t_[i] != '\n') ++i;
        continue;
      }
      if (c == '\\' && i + 1 < n && t_[i + 1] == '\n') {
        i += 2;
        continue;
      }
      if (c == '\n') {
        if (depth == 0 && !out_.empty() && out_.back().k != Tok::Newline) push(Tok::Newline, "", i);
        ++i;
        if (depth == 0) line_start = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
        continue;
      }
      size_t start = i;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i < n && (std::isalnum(static_cast<unsigned char>(t_[i])) || t_[i] == '_')) ++i;
        push(Tok::Name, t_.substr(start, i - start), start, indent);
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(t_[i + 1])))) {
        bool is_float = false;
        while (i < n && (std::isdigit(static_cast<unsigned char>(t_[i])) || t_[i] == '_')) ++i;
        if (i < n && t_[i] == '.') {
          is_float = true;
          ++i;
          while (i < n && std::isdigit(static_cast<unsigned char>(t_[i]))) ++i;
        }
        if (i < n && (t_[i] == 'e' || t_[i] == 'E')) {
          size_t j = i + 1;
          if (j < n && (t_[j] == '+' || t_[j] == '-')) ++j;
          if (j < n && std::isdigit(static_cast<unsigned char>(t_[j]))) {
            is_float = true;
            i = j;
            while (i < n && std::isdigit(static_cast<unsigned char>(t_[i]))) ++i;
          }
        }
        std::string lit;
        for (size_t j = start; j < i; ++j)
          if (t_[j] != '_') lit += t_[j];
        Tok tk;
        tk.off = start;
        tk.indent = indent;
        tk.s = lit;
        errno = 0;
        if (is_float) {
          tk.k = Tok::Float;
          tk.f = std::strtod(lit.c_str(), nullptr);
        } else {
          tk.k = Tok::Int;
          tk.i = std::strtoll(lit.c_str(), nullptr, 10);
          if (errno == ERANGE) return fail("integer literal " + lit + " does not fit in 64 bits", start);
        }
        out_.push_back(tk);
        continue;
      }
      if (c == '\'' || c == '"') {
        bool triple = i + 2 < n && t_[i + 1] == c && t_[i + 2] == c;
        size_t q = triple ? 3 : 1;
        i += q;
        std::string val;
        while (true) {
          if (i >= n) return fail("unterminated string literal", start);
          if (!triple && t_[i] == '\n') return fail("unterminated string literal", start);
          if (t_[i] == '\\' && i + 1 < n) {
            val += t_[i + 1];
            i += 2;
            continue;
          }
          if (t_[i] == c && (!triple || (i + 2 < n && t_[i + 1] == c && t_[i + 2] == c))) {
            i += q;
            break;
          }
          val += t_[i++];
        }
        push(Tok::Str, val, start, indent);
        continue;
      }
      static const char* two[] = {"->", "**", "==", "!=", "<=", ">=", "//"};
      bool matched = false;
      for (const char* op : two)
        if (t_.compare(i, 2, op) == 0) {
          push(Tok::Op, op, i, indent);
          i += 2;
          matched = true;
          break;
        }
      if (matched) continue;
      if (std::string("()[]{},:.=+-*/%<>@").find(c) != std::string::npos) {
        if (c == '(' || c == '[' || c == '{') {
          ++depth;
          open.push_back(i);
        }
        if (c == ')' || c == ']' || c == '}') {
          if (depth == 0) return fail(std::string("unmatched '") + c + "'", i);
          --depth;
          open.pop_back();
        }
        push(Tok::Op, std::string(1, c), i, indent);
        ++i;
        continue;
      }
      return fail(std::string("unexpected character '") + c + "'", i);
    }
    if (depth != 0) return fail(std::string("'") + t_[open.back()] + "' is never closed", open.back());
    if (!out_.empty() && out_.back().k != Tok::Newline) push(Tok::Newline, "", n);
    push(Tok::End, "", n);
    return true;
  }

 private:
  void push(Tok::K k, std::string s, size_t off, int indent = 0) {
    Tok t;
    t.k = k;
    t.s = std::move(s);
    t.off = off;
    t.indent = indent;
    out_.push_back(std::move(t));
  }
  bool fail(std::string m, size_t off) {
    err_ = std::move(m);
    err_off_ = off;
    return false;
  }
  const std::string t_;
  std::vector<Tok>& out_;
  std::string& err_;
  size_t& err_off_;
};

// ------------------------------------------------------------------ AST
struct Kwarg;
struct Node {
  enum K {
    Name,
    Int,
    Float,
    Str,
    True,
    False,
    None,
    List,
    Tuple,
    Call,
    Attr,
    Neg,
    BinOp,
    Subscript
  } k = None;
  std::string s;  // Name / Str / Attr name / BinOp operator
  int64_t i = 0;
  double f = 0;
  size_t off = 0;
  std::vector<Node> kids;     // List/Tuple items; Call: callee then args; Attr/Neg: object; BinOp: l, r
  std::vector<Kwarg> kwargs;  // a vector of an incomplete type is fine; a pair of one is not
};
struct Kwarg {
  std::string first;  // keyword
  Node second;        // value
};

class Parser {
 public:
  Parser(const std::vector<Tok>& toks, size_t pos) : t_(toks), p_(pos) {}
  size_t pos() const { return p_; }
  const Tok& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool isOp(const char* s, size_t k = 0) const { return peek(k).k == Tok::Op && peek(k).s == s; }
  void advance() {
    if (p_ + 1 < t_.size()) ++p_;
  }
  std::string err;
  size_t err_off = 0;

  bool fail(std::string m, size_t off) {
    if (err.empty()) {
      err = std::move(m);
      err_off = off;
    }
    return false;
  }

  bool expect(const char* op) {
    if (!isOp(op)) return fail(std::string("expected '") + op + "'" + found(), peek().off);
    advance();
    return true;
  }

  std::string found() const {
    const Tok& t = peek();
    switch (t.k) {
      case Tok::Newline: return ", found end of line";
      case Tok::End: return ", found end of file";
      default: return ", found '" + t.s + "'";
    }
  }

  bool expr(Node& out, int depth = 0) { return sum(out, depth); }

 private:
  bool sum(Node& out, int depth) {
    if (!term(out, depth)) return false;
    while (isOp("+") || isOp("-")) {
      Node b;
      b.k = Node::BinOp;
      b.s = peek().s;
      b.off = peek().off;
      advance();
      Node r;
      if (!term(r, depth)) return false;
      b.kids.push_back(std::move(out));
      b.kids.push_back(std::move(r));
      out = std::move(b);
    }
    return true;
  }
  bool term(Node& out, int depth) {
    if (!unary(out, depth)) return false;
    while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
      Node b;
      b.k = Node::BinOp;
      b.s = peek().s;
      b.off = peek().off;
      advance();
      Node r;
      if (!unary(r, depth)) return false;
      b.kids.push_back(std::move(out));
      b.kids.push_back(std::move(r));
      out = std::move(b);
    }
    return true;
  }
  bool unary(Node& out, int depth) {
    if (depth > kMaxDepth) return fail("expression nested too deeply", peek().off);
    if (isOp("-") || isOp("+")) {
      bool neg = isOp("-");
      size_t off = peek().off;
      advance();
      Node inner;
      if (!unary(inner, depth + 1)) return false;
      if (!neg) {
        out = std::move(inner);
        return true;
      }
      if (inner.k == Node::Int) {
        inner.i = -inner.i;
        inner.off = off;
        out = std::move(inner);
        return true;
      }
      if (inner.k == Node::Float) {
        inner.f = -inner.f;
        inner.off = off;
        out = std::move(inner);
        return true;
      }
      out.k = Node::Neg;
      out.off = off;
      out.kids.push_back(std::move(inner));
      return true;
    }
    return postfix(out, depth);
  }
  bool postfix(Node& out, int depth) {
    if (!primary(out, depth)) return false;
    while (true) {
      if (isOp(".")) {
        advance();
        if (peek().k != Tok::Name) return fail("expected a name after '.'" + found(), peek().off);
        Node a;
        a.k = Node::Attr;
        a.s = peek().s;
        a.off = out.off;
        advance();
        a.kids.push_back(std::move(out));
        out = std::move(a);
      } else if (isOp("(")) {
        Node c;
        c.k = Node::Call;
        c.off = out.off;
        advance();
        c.kids.push_back(std::move(out));
        while (!isOp(")")) {
          if (peek().k == Tok::Name && isOp("=", 1)) {
            std::string key = peek().s;
            advance();
            advance();
            Node v;
            if (!expr(v, depth + 1)) return false;
            c.kwargs.push_back(Kwarg{std::move(key), std::move(v)});
          } else {
            if (!c.kwargs.empty()) return fail("positional argument after keyword argument", peek().off);
            Node v;
            if (!expr(v, depth + 1)) return false;
            c.kids.push_back(std::move(v));
          }
          if (isOp(","))
            advance();
          else if (!isOp(")"))
            return fail("expected ',' or ')'" + found(), peek().off);
        }
        advance();
        out = std::move(c);
      } else if (isOp("[")) {
        return fail("subscripts are not supported", peek().off);
      } else {
        return true;
      }
    }
  }
  bool primary(Node& out, int depth) {
    const Tok& t = peek();
    out.off = t.off;
    switch (t.k) {
      case Tok::Name:
        if (t.s == "True")
          out.k = Node::True;
        else if (t.s == "False")
          out.k = Node::False;
        else if (t.s == "None")
          out.k = Node::None;
        else {
          out.k = Node::Name;
          out.s = t.s;
        }
        advance();
        return true;
      case Tok::Int:
        out.k = Node::Int;
        out.i = t.i;
        out.s = t.s;
        advance();
        return true;
      case Tok::Float:
        out.k = Node::Float;
        out.f = t.f;
        out.s = t.s;
        advance();
        return true;
      case Tok::Str:
        out.k = Node::Str;
        out.s = t.s;
        advance();
        return true;
      case Tok::Op:
        if (t.s == "(" || t.s == "[") {
          bool list = t.s == "[";
          const char* close = list ? "]" : ")";
          advance();
          out.k = list ? Node::List : Node::Tuple;
          bool trailing_comma = false;
          while (!isOp(close)) {
            Node v;
            if (!expr(v, depth + 1)) return false;
            out.kids.push_back(std::move(v));
            trailing_comma = false;
            if (isOp(",")) {
              advance();
              trailing_comma = true;
            } else if (!isOp(close)) {
              return fail(std::string("expected ',' or '") + close + "'" + found(), peek().off);
            }
          }
          advance();
          if (!list && out.kids.size() == 1 && !trailing_comma) {
            Node inner = std::move(out.kids[0]);
            out = std::move(inner);
          }
          return true;
        }
        break;
      default: break;
    }
    return fail("expected an expression" + found(), t.off);
  }

  const std::vector<Tok>& t_;
  size_t p_;
};

std::string dotted(const Node& n) {
  if (n.k == Node::Name) return n.s;
  if (n.k == Node::Attr && !n.kids.empty()) {
    std::string base = dotted(n.kids[0]);
    return base.empty() ? std::string() : base + "." + n.s;
  }
  return {};
}

// ------------------------------------------------------------------ interpreter
struct Binding {
  enum K { Tensor, Scalar, Vector, Mesh } k = Scalar;
  uint32_t id = kNone;
  std::vector<ScalarId> vec;
};

struct OpSpec {
  OpKind kind;
  std::vector<const char*> params;
};

class Importer {
 public:
  Importer(const SourceText& src, DiagnosticSink& sink) : src_(src), sink_(sink), b_(f_) {}

  std::optional<Fusion> run() {
    std::vector<Tok> toks;
    std::string err;
    size_t err_off = 0;
    Lexer lx(src_.text(), toks, err, err_off);
    if (!lx.run()) {
      error(DiagCode::ImportSyntax, err, err_off);
      return std::nullopt;
    }
    size_t p = 0;
    while (p < toks.size() && toks[p].k != Tok::End) {
      if (toks[p].k == Tok::Newline) {
        ++p;
        continue;
      }
      size_t line_end = p;
      while (toks[line_end].k != Tok::Newline && toks[line_end].k != Tok::End) ++line_end;
      statement(toks, p, line_end);
      p = line_end;
    }
    if (!saw_def_)
      error(DiagCode::ImportSyntax, "no `def ...(fd : FusionDefinition)` definition found", 0);
    else if (f_.outputs.empty() && !errors_)
      error(DiagCode::ImportSyntax, "the definition adds no output (no `fd.add_output(...)`)", 0);
    if (errors_) return std::nullopt;
    b_.finish();
    f_.provenance.emplace_back("imported_from", "nvfuser-python");
    if (!func_name_.empty()) f_.name = func_name_;
    return std::move(f_);
  }

 private:
  void statement(const std::vector<Tok>& toks, size_t p, size_t end) {
    const Tok& first = toks[p];
    bool indented = first.indent > 0;
    if (first.k == Tok::Name) {
      const std::string& w = first.s;
      if (w == "import" || w == "from" || w == "pass") return;
      if (w == "def") {
        if (p + 1 < end && toks[p + 1].k == Tok::Name) {
          std::string name = toks[p + 1].s;
          if (name != "multidevice_schedule" && name != "schedule" && name != "definition") {
            if (!saw_def_) func_name_ = name;
          }
          saw_def_ = true;
          in_def_ = true;
        }
        return;
      }
      if (w == "with") {
        in_def_ = false;
        return;
      }
      if (w == "class" || w == "for" || w == "if" || w == "while" || w == "return" || w == "try" ||
          w == "elif" || w == "else") {
        error(DiagCode::ImportUnsupported, "`" + w + "` statements are not supported in repro scripts",
              first.off);
        return;
      }
    }
    if (!indented) in_def_ = false;
    // targets '=' expr, or expr
    std::vector<std::pair<std::string, size_t>> targets;
    size_t q = p;
    {
      size_t k = p;
      std::vector<std::pair<std::string, size_t>> names;
      bool ok = true;
      while (k < end && toks[k].k == Tok::Name) {
        names.emplace_back(toks[k].s, toks[k].off);
        ++k;
        if (k < end && toks[k].k == Tok::Op && toks[k].s == ",") {
          ++k;
          continue;
        }
        break;
      }
      if (!names.empty() && k < end && toks[k].k == Tok::Op && toks[k].s == "=") {
        targets = std::move(names);
        q = k + 1;
      } else {
        ok = false;
      }
      (void)ok;
    }
    Parser ps(toks, q);
    Node e;
    if (!ps.expr(e)) {
      error(DiagCode::ImportSyntax, ps.err, ps.err_off);
      return;
    }
    if (ps.pos() != end) {
      error(DiagCode::ImportSyntax, "unexpected '" + toks[ps.pos()].s + "' after the expression",
            toks[ps.pos()].off);
      return;
    }
    if (targets.size() == 1 && targets[0].first == "inputs" && !in_def_) {
      concreteInputs(e);
      return;
    }
    if (e.k == Node::Call) {
      std::string callee = dotted(e.kids[0]);
      std::string fd_prefix;
      if (callee.rfind("fd.", 0) == 0)
        fd_prefix = "fd.";
      else if (callee.rfind("self.", 0) == 0)
        fd_prefix = "self.";
      if (!fd_prefix.empty()) {
        fdCall(callee.substr(fd_prefix.size()), e, targets);
        return;
      }
      if (callee == "nvfuser.DeviceMesh" || callee == "DeviceMesh") {
        if (targets.size() == 1) defineMesh(e, targets[0].first);
        return;
      }
      if (callee == func_name_ || callee == "multidevice_schedule" || callee == "torch.cuda.set_device" ||
          callee == "print")
        return;
    }
    if (in_def_) {
      error(DiagCode::ImportUnsupported, "unsupported statement in the fusion definition", first.off);
      return;
    }
    // Top-level constants such as `rank = 0` are remembered; anything else is reported.
    if (targets.size() == 1 && e.k == Node::Int) {
      int_consts_[targets[0].first] = e.i;
      return;
    }
    warning(DiagCode::ImportUnsupported, "statement ignored: it does not describe the fusion", first.off);
  }

  // ---- diagnostics
  Location loc(size_t off) const {
    LineCol lc = src_.lineCol(off);
    return Location{src_.path(), "", lc.line, lc.col};
  }
  void error(DiagCode c, std::string m, size_t off) {
    ++errors_;
    sink_.error(c, std::move(m), loc(off));
  }
  void warning(DiagCode c, std::string m, size_t off) {
    sink_.report(Severity::Warning, c, std::move(m), loc(off));
  }

  // ---- argument binding
  // Maps positional and keyword arguments of call `c` to `params`; reports unknown keywords.
  bool bindArgs(const Node& c, const std::string& fname, const std::vector<const char*>& params,
                std::map<std::string, const Node*>& out) {
    if (c.kids.size() - 1 > params.size()) {
      error(DiagCode::ImportUnsupported,
            fname + " takes at most " + std::to_string(params.size()) + " positional arguments", c.off);
      return false;
    }
    for (size_t i = 1; i < c.kids.size(); ++i) out[params[i - 1]] = &c.kids[i];
    for (const auto& [k, v] : c.kwargs) {
      bool known = false;
      for (const char* p : params)
        if (k == p) known = true;
      if (!known) {
        error(DiagCode::ImportUnsupported, "unsupported argument `" + k + "` of " + fname, v.off);
        return false;
      }
      out[k] = &v;
    }
    return true;
  }

  const Binding* lookup(const Node& n) {
    if (n.k != Node::Name) return nullptr;
    auto it = env_.find(n.s);
    if (it == env_.end()) {
      error(DiagCode::ImportUnresolved, "`" + n.s + "` is not defined", n.off);
      return nullptr;
    }
    return &it->second;
  }

  std::optional<TensorId> tensorArg(const Node* n, const std::string& what) {
    if (!n) return std::nullopt;
    if (n->k != Node::Name) {
      error(DiagCode::ImportUnsupported, what + " must name a tensor", n->off);
      return std::nullopt;
    }
    const Binding* b = lookup(*n);
    if (!b) return std::nullopt;
    if (b->k != Binding::Tensor) {
      error(DiagCode::ImportUnsupported, what + ": `" + n->s + "` is not a tensor", n->off);
      return std::nullopt;
    }
    return b->id;
  }

  std::optional<double> floatLiteral(const Node& n) {
    if (n.k == Node::Float) return n.f;
    if (n.k == Node::Int) return static_cast<double>(n.i);
    if (n.k == Node::Call && dotted(n.kids[0]) == "float" && n.kids.size() == 2 && n.kids[1].k == Node::Str) {
      const std::string& s = n.kids[1].s;
      if (s == "inf" || s == "+inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
      if (s == "nan") return NAN;
      char* endp = nullptr;
      double v = std::strtod(s.c_str(), &endp);
      if (endp && *endp == 0 && !s.empty()) return v;
    }
    if (n.k == Node::Neg && !n.kids.empty()) {
      auto v = floatLiteral(n.kids[0]);
      if (v) return -*v;
    }
    return std::nullopt;
  }

  // A scalar operand: a bound scalar name, or a literal (ints as `int_dtype`, floats as Double).
  std::optional<ScalarId> scalarArg(const Node* n, const std::string& what, DType int_dtype = DType::Int) {
    if (!n) return std::nullopt;
    switch (n->k) {
      case Node::Int: return b_.constInt(n->i, int_dtype);
      case Node::True: return b_.constBool(true);
      case Node::False: return b_.constBool(false);
      case Node::Name: {
        auto ci = int_consts_.find(n->s);
        if (ci != int_consts_.end() && !env_.count(n->s)) return b_.constInt(ci->second, int_dtype);
        const Binding* b = lookup(*n);
        if (!b) return std::nullopt;
        if (b->k != Binding::Scalar) {
          error(DiagCode::ImportUnsupported, what + ": `" + n->s + "` is not a scalar", n->off);
          return std::nullopt;
        }
        return b->id;
      }
      default: break;
    }
    if (auto v = floatLiteral(*n)) return b_.constFloat(*v, DType::Double);
    error(DiagCode::ImportUnsupported, what + " must be a scalar or a literal", n->off);
    return std::nullopt;
  }

  std::optional<ValueRef> operandArg(const Node* n, const std::string& what) {
    if (!n) return std::nullopt;
    if (n->k == Node::Name && !int_consts_.count(n->s)) {
      const Binding* b = lookup(*n);
      if (!b) return std::nullopt;
      if (b->k == Binding::Tensor) return ValueRef::tensor(b->id);
      if (b->k == Binding::Scalar) return ValueRef::scalar(b->id);
      error(DiagCode::ImportUnsupported, what + ": `" + n->s + "` is not a tensor or scalar", n->off);
      return std::nullopt;
    }
    auto s = scalarArg(n, what);
    if (!s) return std::nullopt;
    return ValueRef::scalar(*s);
  }

  std::optional<int64_t> intArg(const Node* n, const std::string& what) {
    if (!n) return std::nullopt;
    if (n->k == Node::Int) return n->i;
    if (n->k == Node::True || n->k == Node::False) return n->k == Node::True ? 1 : 0;
    if (n->k == Node::Name && int_consts_.count(n->s)) return int_consts_[n->s];
    error(DiagCode::ImportUnsupported, what + " must be an integer literal", n->off);
    return std::nullopt;
  }

  std::optional<bool> boolArg(const Node* n, const std::string& what) {
    if (!n) return std::nullopt;
    if (n->k == Node::True || n->k == Node::False) return n->k == Node::True;
    if (n->k == Node::Int) return n->i != 0;
    error(DiagCode::ImportUnsupported, what + " must be True or False", n->off);
    return std::nullopt;
  }

  const std::vector<Node>* listItems(const Node* n, const std::string& what) {
    if (n && (n->k == Node::List || n->k == Node::Tuple)) return &n->kids;
    if (n) error(DiagCode::ImportUnsupported, what + " must be a list", n->off);
    return nullptr;
  }

  std::optional<std::vector<int64_t>> intList(const Node* n, const std::string& what) {
    if (n && n->k == Node::Int) return std::vector<int64_t>{n->i};
    auto items = listItems(n, what);
    if (!items) return std::nullopt;
    std::vector<int64_t> r;
    for (const Node& it : *items) {
      auto v = intArg(&it, what);
      if (!v) return std::nullopt;
      r.push_back(*v);
    }
    return r;
  }

  std::optional<std::vector<bool>> boolList(const Node* n, const std::string& what) {
    auto items = listItems(n, what);
    if (!items) return std::nullopt;
    std::vector<bool> r;
    for (const Node& it : *items) {
      auto v = boolArg(&it, what);
      if (!v) return std::nullopt;
      r.push_back(*v);
    }
    return r;
  }

  // A list of scalars (literals or names) or a vector name (define_vector / ops.shape).
  std::optional<std::vector<ScalarId>> scalarList(const Node* n, const std::string& what) {
    if (!n) return std::nullopt;
    if (n->k == Node::Name && env_.count(n->s) && env_[n->s].k == Binding::Vector) return env_[n->s].vec;
    auto items = listItems(n, what);
    if (!items) return std::nullopt;
    std::vector<ScalarId> r;
    for (const Node& it : *items) {
      auto s = scalarArg(&it, what, DType::Index);
      if (!s) return std::nullopt;
      r.push_back(*s);
    }
    return r;
  }

  // DataType.Half -> Half; DataType.Null -> nullopt with ok.
  bool dtypeArg(const Node* n, std::optional<DType>& out, const std::string& what) {
    if (!n || n->k == Node::None) return true;
    std::string d = dotted(*n);
    std::string name;
    for (const char* pre : {"DataType.", "nvfuser.DataType.", "torch."})
      if (d.rfind(pre, 0) == 0) name = d.substr(std::string(pre).size());
    if (d.rfind("torch.", 0) == 0) {
      static const std::map<std::string, DType> torch_types = {{"float16", DType::Half},
                                                               {"half", DType::Half},
                                                               {"bfloat16", DType::BFloat16},
                                                               {"float32", DType::Float},
                                                               {"float", DType::Float},
                                                               {"float64", DType::Double},
                                                               {"double", DType::Double},
                                                               {"int32", DType::Int32},
                                                               {"int64", DType::Int},
                                                               {"long", DType::Int},
                                                               {"bool", DType::Bool},
                                                               {"float8_e4m3fn", DType::Float8_e4m3fn},
                                                               {"float8_e5m2", DType::Float8_e5m2}};
      auto it = torch_types.find(name);
      if (it != torch_types.end()) {
        out = it->second;
        return true;
      }
      error(DiagCode::ImportUnsupported, what + ": unsupported torch dtype `" + d + "`", n->off);
      return false;
    }
    if (name == "Null") return true;
    if (auto t = parseDType(name)) {
      out = *t;
      return true;
    }
    error(DiagCode::ImportUnsupported, what + ": unsupported dtype `" + (d.empty() ? "?" : d) + "`", n->off);
    return false;
  }

  // ---- fd.* calls
  void fdCall(const std::string& name, const Node& c,
              const std::vector<std::pair<std::string, size_t>>& targets) {
    if (name == "define_tensor") return defineTensor(c, targets);
    if (name == "define_scalar") return defineScalar(c, targets);
    if (name == "define_vector") return defineVector(c, targets);
    if (name == "add_output") return addOutput(c);
    if (name == "execute" || name == "validate") return;
    if (name.rfind("ops.", 0) == 0) return opCall(name.substr(4), c, targets);
    if (name.rfind("sched.", 0) == 0) return schedCall(name.substr(6), c, targets);
    error(DiagCode::ImportUnsupported, "unsupported FusionDefinition call `fd." + name + "`", c.off);
  }

  bool bindTargets(const std::vector<std::pair<std::string, size_t>>& targets,
                   const std::vector<Binding>& vals, size_t off) {
    if (targets.size() != vals.size()) {
      error(DiagCode::ImportSyntax,
            "expected " + std::to_string(vals.size()) + " assignment target(s), got " +
                std::to_string(targets.size()),
            off);
      return false;
    }
    for (size_t i = 0; i < vals.size(); ++i)
      if (targets[i].first != "_") env_[targets[i].first] = vals[i];
    return true;
  }

  void defineTensor(const Node& c, const std::vector<std::pair<std::string, size_t>>& targets) {
    std::map<std::string, const Node*> a;
    if (!bindArgs(
            c, "fd.define_tensor",
            {"shape", "contiguity", "dtype", "is_cpu", "stride_order", "sizes", "strides", "static_sizes"},
            a))
      return;
    std::optional<DType> dt;
    if (!dtypeArg(a["dtype"], dt, "define_tensor dtype")) return;
    DType dtype = dt.value_or(DType::Float);
    std::vector<int64_t> shape;
    std::vector<std::optional<bool>> contig;
    std::vector<int64_t> strides;
    bool sizes_form = a.count("sizes") > 0;
    if (sizes_form) {
      auto s = intList(a["sizes"], "sizes");
      if (!s) return;
      shape = *s;
      if (a.count("strides")) {
        auto st = intList(a["strides"], "strides");
        if (!st) return;
        strides = *st;
        if (strides.size() != shape.size()) {
          error(DiagCode::ImportUnsupported, "define_tensor: sizes and strides differ in length",
                a["strides"]->off);
          return;
        }
      }
      bool static_sizes = false;
      if (a.count("static_sizes")) {
        auto v = boolArg(a["static_sizes"], "static_sizes");
        if (!v) return;
        static_sizes = *v;
      }
      // contiguity from strides (innermost stride 1, each stride = next stride * next size),
      // None for broadcast (size 1) and expanded (stride 0) dims.
      contig.assign(shape.size(), true);
      int64_t expect = 1;
      for (size_t d = shape.size(); d-- > 0;) {
        int64_t st = strides.empty() ? expect : strides[d];
        if (shape[d] == 1 || st == 0) {
          contig[d] = std::nullopt;
          continue;
        }
        contig[d] = st == expect;
        expect = st * shape[d];
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        if (!static_sizes && shape[d] != 1 && !(contig[d] == std::nullopt)) shape[d] = -1;
        if (!static_sizes && contig[d] == std::nullopt && shape[d] != 1) shape[d] = -1;
      }
    } else {
      auto s = intList(a["shape"], "shape");
      if (!s) {
        if (!a.count("shape")) error(DiagCode::ImportSyntax, "define_tensor needs a shape", c.off);
        return;
      }
      shape = *s;
      if (a.count("contiguity")) {
        const Node* cn = a["contiguity"];
        if (cn->k == Node::True || cn->k == Node::False) {
          contig.assign(shape.size(), cn->k == Node::True);
        } else {
          auto items = listItems(cn, "contiguity");
          if (!items) return;
          for (const Node& it : *items) {
            if (it.k == Node::None)
              contig.push_back(std::nullopt);
            else if (it.k == Node::True || it.k == Node::False)
              contig.push_back(it.k == Node::True);
            else {
              error(DiagCode::ImportUnsupported, "contiguity entries must be True, False or None", it.off);
              return;
            }
          }
        }
        if (contig.size() != shape.size()) {
          error(DiagCode::ImportUnsupported,
                "define_tensor: contiguity has " + std::to_string(contig.size()) + " entries for a rank-" +
                    std::to_string(shape.size()) + " shape",
                cn->off);
          return;
        }
      }
    }
    if (a.count("is_cpu")) {
      auto v = boolArg(a["is_cpu"], "is_cpu");
      if (!v) return;
      if (*v) {
        error(DiagCode::ImportUnsupported, "CPU scalar tensors (is_cpu=True) are not modeled",
              a["is_cpu"]->off);
        return;
      }
    }
    std::vector<AxisId> logical;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t n = shape[d];
      bool none = d < contig.size() && !contig[d].has_value();
      if (n < -1) {
        error(DiagCode::ImportUnsupported,
              "define_tensor: shape entry " + std::to_string(n) + " is not -1 or a size",
              a.count("shape") ? a["shape"]->off : c.off);
        return;
      }
      if (n == 1) {
        logical.push_back(b_.axis(IterType::Broadcast, b_.constInt(1)));
      } else if (none) {
        // An expanded broadcast: extent 1, expanded to the shape entry (symbolic for -1).
        ScalarId ex = n == -1 ? b_.freshSymbol() : b_.constInt(n);
        logical.push_back(b_.axis(IterType::Broadcast, b_.constInt(1), ex));
      } else {
        ScalarId ext = n == -1 ? b_.freshSymbol() : b_.constInt(n);
        logical.push_back(b_.axis(IterType::Iteration, ext));
      }
    }
    TensorId t = b_.tensor(dtype, logical);
    Tensor& tv = f_.tensors[t];
    if (a.count("stride_order")) {
      auto so = intList(a["stride_order"], "stride_order");
      if (!so) return;
      if (so->size() != shape.size()) {
        error(DiagCode::ImportUnsupported, "define_tensor: stride_order length differs from the rank",
              a["stride_order"]->off);
        return;
      }
      // stride_order[d] is dim d's position counted from the innermost (0 = innermost).
      std::vector<AxisId> alloc(shape.size(), kNone);
      bool identity = true;
      for (size_t d = 0; d < so->size(); ++d) {
        int64_t r = (*so)[d];
        if (r < 0 || static_cast<size_t>(r) >= shape.size() ||
            alloc[shape.size() - 1 - static_cast<size_t>(r)] != kNone) {
          error(DiagCode::ImportUnsupported, "define_tensor: stride_order is not a permutation",
                a["stride_order"]->off);
          return;
        }
        alloc[shape.size() - 1 - static_cast<size_t>(r)] = logical[d];
        if (shape.size() - 1 - static_cast<size_t>(r) != d) identity = false;
      }
      if (!identity) {
        std::vector<std::optional<bool>> c2;
        for (AxisId ax : alloc)
          for (size_t d = 0; d < logical.size(); ++d)
            if (logical[d] == ax) c2.push_back(d < contig.size() ? contig[d] : std::optional<bool>(true));
        tv.allocation = alloc;
        if (!contig.empty()) contig = c2;
      }
    }
    tv.contiguity = contig;
    f_.inputs.push_back(ValueRef::tensor(t));
    bindTargets(targets, {Binding{Binding::Tensor, t, {}}}, c.off);
  }

  void defineScalar(const Node& c, const std::vector<std::pair<std::string, size_t>>& targets) {
    std::map<std::string, const Node*> a;
    if (!bindArgs(c, "fd.define_scalar", {"value", "dtype"}, a)) return;
    std::optional<DType> dt;
    if (!dtypeArg(a["dtype"], dt, "define_scalar dtype")) return;
    const Node* v = a["value"];
    ScalarId s;
    if (!v || v->k == Node::None) {
      s = b_.scalarInput(dt.value_or(DType::Double));
      f_.inputs.push_back(ValueRef::scalar(s));
    } else if (v->k == Node::True || v->k == Node::False) {
      s = b_.constBool(v->k == Node::True);
    } else if (v->k == Node::Int && (!dt || !isFloatingPoint(*dt))) {
      s = b_.constInt(v->i, dt.value_or(DType::Int));
    } else if (auto fv = floatLiteral(*v)) {
      s = b_.constFloat(*fv, dt.value_or(DType::Double));
    } else {
      error(DiagCode::ImportUnsupported, "define_scalar value must be None or a literal", v->off);
      return;
    }
    bindTargets(targets, {Binding{Binding::Scalar, s, {}}}, c.off);
  }

  void defineVector(const Node& c, const std::vector<std::pair<std::string, size_t>>& targets) {
    std::map<std::string, const Node*> a;
    if (!bindArgs(c, "fd.define_vector", {"values", "dtype"}, a)) return;
    std::optional<DType> dt;
    if (!dtypeArg(a["dtype"], dt, "define_vector dtype")) return;
    Binding b{Binding::Vector, kNone, {}};
    const Node* v = a["values"];
    if (v && v->k == Node::Int) {
      for (int64_t i = 0; i < v->i && i < 64; ++i) {
        ScalarId s = b_.scalarInput(dt.value_or(DType::Int));
        f_.inputs.push_back(ValueRef::scalar(s));
        b.vec.push_back(s);
      }
    } else {
      auto l = scalarList(v, "define_vector values");
      if (!l) return;
      b.vec = *l;
    }
    bindTargets(targets, {b}, c.off);
  }

  void addOutput(const Node& c) {
    std::map<std::string, const Node*> a;
    if (!bindArgs(c, "fd.add_output", {"output", "alias_input", "stride_order"}, a)) return;
    auto t = tensorArg(a["output"], "add_output");
    if (!t) {
      if (!a.count("output")) error(DiagCode::ImportSyntax, "add_output needs an output", c.off);
      return;
    }
    if (a.count("alias_input")) {
      auto in = tensorArg(a["alias_input"], "alias_input");
      if (!in) return;
      // nvFuser writes the output into the aliased input; the model keeps it as an output and
      // records the alias.
      f_.provenance.emplace_back("alias:" + std::string(f_.tensorName(*t)), std::string(f_.tensorName(*in)));
      warning(DiagCode::ImportUnsupported,
              "output aliasing is not modeled: " + std::string(f_.tensorName(*t)) +
                  " is kept as an ordinary output (the alias is recorded in provenance)",
              a["alias_input"]->off);
    }
    if (a.count("stride_order")) {
      auto so = intList(a["stride_order"], "stride_order");
      if (!so) return;
      f_.provenance.emplace_back("output_stride_order:" + std::string(f_.tensorName(*t)), [&] {
        std::string s;
        for (size_t i = 0; i < so->size(); ++i) s += (i ? "," : "") + std::to_string((*so)[i]);
        return s;
      }());
    }
    f_.outputs.push_back(*t);
  }

  // The op table: our op kind and nvFuser's parameter names, per fd.ops name.
  const OpSpec* spec(const std::string& name) {
    static const std::unordered_map<std::string, OpSpec> table = [] {
      std::unordered_map<std::string, OpSpec> t;
      for (int i = 0; i < numOpKinds(); ++i) {
        auto k = static_cast<OpKind>(i);
        const OpInfo& info = opInfo(k);
        std::vector<const char*> p;
        switch (info.category) {
          case OpCategory::Set:
          case OpCategory::Unary: p = {"arg"}; break;
          case OpCategory::Cast: p = {"arg", "dtype"}; break;
          case OpCategory::Binary:
          case OpCategory::Compare: p = {"lhs", "rhs"}; break;
          case OpCategory::Ternary: p = {"pred", "value1", "value2"}; break;
          default: break;
        }
        t.emplace(std::string(info.name), OpSpec{k, p});
      }
      t["gelu"].params = {"arg", "approximate"};
      t["broadcast"].params = {"arg", "is_broadcast_dim"};
      t["broadcast_in_dim"].params = {"arg", "shape", "broadcast_dims"};
      t["expand"].params = {"arg", "shape"};
      t["squeeze"].params = {"arg", "dims", "squeeze_expanded"};
      t["permute"].params = {"arg", "dims"};
      t["reshape"].params = {"arg", "new_shape"};
      t["slice"].params = {"arg", "start_indices", "end_indices", "strides", "manual_normalization"};
      t["pad"].params = {"arg", "pad_widths", "value"};
      t["cat"].params = {"tensors", "dim", "manual_padding"};
      for (const char* r : {"sum", "prod", "max", "min"}) t[r].params = {"arg", "dims", "keepdim", "dtype"};
      t["mean"].params = {"arg", "dims", "keepdim"};
      t["var"].params = {"arg", "dims", "correction", "keepdim"};
      t["var_mean"].params = {"arg", "dims", "correction", "keepdim"};
      t["full"].params = {"shape", "fill_value", "dtype"};
      t["zeros"].params = {"shape", "dtype"};
      t["ones"].params = {"shape", "dtype"};
      t["iota"].params = {"length", "start", "step", "dtype"};
      t["matmul"].params = {"arg1", "arg2"};
      t["linear"].params = {"arg1", "arg2", "bias"};
      // nvFuser spellings that differ from ours.
      t["transpose"] = t["permute"];
      t["view"] = t["reshape"];
      t["bitwise_not"] = t["logical_not"];
      t["minimum"] = t["minimum"];
      return t;
    }();
    auto it = table.find(name);
    return it == table.end() ? nullptr : &it->second;
  }

  void opCall(const std::string& name, const Node& c,
              const std::vector<std::pair<std::string, size_t>>& targets) {
    const std::string fname = "fd.ops." + name;
    if (name == "size" || name == "shape") return sizeCall(name, c, targets);
    const OpSpec* sp = spec(name);
    if (!sp) {
      error(DiagCode::ImportUnsupported, "unsupported op `" + fname + "`: fusecheck does not model it",
            c.off);
      return;
    }
    std::map<std::string, const Node*> a;
    if (!bindArgs(c, fname, sp->params, a)) return;
    OpKind k = sp->kind;
    const OpInfo& info = opInfo(k);
    Attrs attrs;
    std::vector<ValueRef> in;
    auto need = [&](const char* p) -> const Node* {
      auto it = a.find(p);
      if (it == a.end()) {
        error(DiagCode::ImportSyntax, fname + " is missing its `" + p + "` argument", c.off);
        return nullptr;
      }
      return it->second;
    };
    switch (info.category) {
      case OpCategory::Set:
      case OpCategory::Unary:
      case OpCategory::Cast:
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::Ternary: {
        std::vector<const char*> operands;
        for (const char* p : sp->params)
          if (std::string(p) != "dtype" && std::string(p) != "approximate") operands.push_back(p);
        for (const char* p : operands) {
          const Node* n = need(p);
          if (!n) return;
          auto v = operandArg(n, fname);
          if (!v) return;
          in.push_back(*v);
        }
        if (k == OpKind::Cast) {
          const Node* n = need("dtype");
          if (!n) return;
          if (!dtypeArg(n, attrs.dtype, fname)) return;
          if (!attrs.dtype) {
            error(DiagCode::ImportUnsupported, "cast to DataType.Null", n->off);
            return;
          }
        }
        if (k == OpKind::Gelu && a.count("approximate")) {
          const Node* n = a["approximate"];
          if (n->k != Node::Str || (n->s != "none" && n->s != "tanh")) {
            error(DiagCode::ImportUnsupported, "gelu approximate must be 'none' or 'tanh'", n->off);
            return;
          }
          attrs.approximate_tanh = n->s == "tanh";
        }
        bool all_scalar = true;
        for (const ValueRef& v : in)
          if (v.isTensor()) all_scalar = false;
        if (all_scalar) return scalarOp(k, in, targets, c);
        break;
      }
      default: break;
    }
    switch (k) {
      case OpKind::Broadcast: {
        auto t = tensorArg(need("arg"), fname);
        auto fl = boolList(need("is_broadcast_dim"), "is_broadcast_dim");
        if (!t || !fl) return;
        in.push_back(ValueRef::tensor(*t));
        attrs.flags = *fl;
        break;
      }
      case OpKind::BroadcastInDim:
      case OpKind::Expand: {
        auto t = tensorArg(need("arg"), fname);
        auto sh = scalarList(need("shape"), "shape");
        if (!t || !sh) return;
        in.push_back(ValueRef::tensor(*t));
        attrs.shape = *sh;
        if (k == OpKind::BroadcastInDim) {
          auto d = intList(need("broadcast_dims"), "broadcast_dims");
          if (!d) return;
          attrs.dims = *d;
        }
        break;
      }
      case OpKind::Squeeze:
      case OpKind::Permute: {
        auto t = tensorArg(need("arg"), fname);
        auto d = intList(need("dims"), "dims");
        if (!t || !d) return;
        in.push_back(ValueRef::tensor(*t));
        attrs.dims = *d;
        if (a.count("squeeze_expanded") && !boolArg(a["squeeze_expanded"], "squeeze_expanded")) return;
        break;
      }
      case OpKind::Reshape: {
        auto t = tensorArg(need("arg"), fname);
        auto sh = scalarList(need("new_shape"), "new_shape");
        if (!t || !sh) return;
        in.push_back(ValueRef::tensor(*t));
        attrs.shape = *sh;
        break;
      }
      case OpKind::Slice: {
        auto t = tensorArg(need("arg"), fname);
        auto st = scalarList(need("start_indices"), "start_indices");
        auto en = scalarList(need("end_indices"), "end_indices");
        if (!t || !st || !en) return;
        std::vector<ScalarId> steps;
        if (a.count("strides") && a["strides"]->k != Node::None) {
          auto s = scalarList(a["strides"], "strides");
          if (!s) return;
          steps = *s;
        }
        if (st->size() != en->size() || (!steps.empty() && steps.size() != st->size())) {
          error(DiagCode::ImportUnsupported, "slice: start_indices, end_indices and strides differ in length",
                c.off);
          return;
        }
        in.push_back(ValueRef::tensor(*t));
        for (size_t i = 0; i < st->size(); ++i)
          attrs.ranges.push_back(SliceRange{(*st)[i], (*en)[i], steps.empty() ? b_.constInt(1) : steps[i]});
        break;
      }
      case OpKind::Pad: {
        auto t = tensorArg(need("arg"), fname);
        auto w = scalarList(need("pad_widths"), "pad_widths");
        if (!t || !w) return;
        in.push_back(ValueRef::tensor(*t));
        attrs.pad = *w;
        if (a.count("value") && a["value"]->k != Node::None) {
          auto v = scalarArg(a["value"], "pad value");
          if (!v) return;
          attrs.value = *v;
        }
        break;
      }
      case OpKind::Cat: {
        auto items = listItems(need("tensors"), "cat tensors");
        if (!items) return;
        for (const Node& n : *items) {
          auto t = tensorArg(&n, fname);
          if (!t) return;
          in.push_back(ValueRef::tensor(*t));
        }
        if (a.count("dim")) {
          auto d = intArg(a["dim"], "dim");
          if (!d) return;
          attrs.dim = *d;
        }
        break;
      }
      case OpKind::Sum:
      case OpKind::Prod:
      case OpKind::Max:
      case OpKind::Min:
      case OpKind::Mean:
      case OpKind::Var:
      case OpKind::VarMean: {
        auto t = tensorArg(need("arg"), fname);
        if (!t) return;
        in.push_back(ValueRef::tensor(*t));
        const Node* dims = a.count("dims") ? a["dims"] : nullptr;
        // sum(arg, dtype) / sum(arg, DataType.X): all axes.
        if (dims && dotted(*dims).rfind("DataType.", 0) == 0 && !a.count("dtype")) {
          a["dtype"] = dims;
          dims = nullptr;
        }
        if (dims && dims->k != Node::None) {
          auto d = intList(dims, "dims");
          if (!d) return;
          attrs.dims = *d;
        }
        if (a.count("keepdim")) {
          auto kd = boolArg(a["keepdim"], "keepdim");
          if (!kd) return;
          attrs.keepdim = *kd;
        }
        if (a.count("correction")) {
          auto cr = intArg(a["correction"], "correction");
          if (!cr) return;
          attrs.correction = *cr;
        }
        if (a.count("dtype")) {
          if (!dtypeArg(a["dtype"], attrs.dtype, "dtype")) return;
          if (attrs.dtype && !opAccepts(k, Attr::DType)) {
            error(DiagCode::ImportUnsupported, fname + " with a dtype other than DataType.Null",
                  a["dtype"]->off);
            return;
          }
        }
        break;
      }
      case OpKind::Full:
      case OpKind::Zeros:
      case OpKind::Ones: {
        auto sh = scalarList(need("shape"), "shape");
        if (!sh) return;
        attrs.shape = *sh;
        if (k == OpKind::Full) {
          auto v = scalarArg(need("fill_value"), "fill_value");
          if (!v) return;
          attrs.value = *v;
        }
        if (a.count("dtype") && !dtypeArg(a["dtype"], attrs.dtype, "dtype")) return;
        if (!attrs.dtype && k == OpKind::Full) attrs.dtype = b_.scalarDType(attrs.value);
        if (!attrs.dtype) attrs.dtype = DType::Float;
        break;
      }
      case OpKind::Iota: {
        auto len = scalarArg(need("length"), "length", DType::Index);
        if (!len) return;
        attrs.shape = {*len};
        if (a.count("dtype") && !dtypeArg(a["dtype"], attrs.dtype, "dtype")) return;
        if (!attrs.dtype) attrs.dtype = DType::Int;
        if (a.count("start") && a["start"]->k != Node::None) {
          auto s = scalarArg(a["start"], "start");
          if (!s) return;
          attrs.start = *s;
        }
        if (a.count("step") && a["step"]->k != Node::None) {
          auto s = scalarArg(a["step"], "step");
          if (!s) return;
          attrs.step = *s;
        }
        break;
      }
      case OpKind::Matmul:
      case OpKind::Linear: {
        auto x = tensorArg(need("arg1"), fname);
        auto w = tensorArg(need("arg2"), fname);
        if (!x || !w) return;
        in = {ValueRef::tensor(*x), ValueRef::tensor(*w)};
        if (k == OpKind::Linear && a.count("bias") && a["bias"]->k != Node::None) {
          auto bias = tensorArg(a["bias"], fname);
          if (!bias) return;
          in.push_back(ValueRef::tensor(*bias));
        }
        break;
      }
      default: break;
    }
    std::string err;
    auto outs = b_.op(k, std::move(in), std::move(attrs), err);
    if (!outs) {
      error(DiagCode::ImportUnsupported, fname + ": " + err, c.off);
      return;
    }
    std::vector<Binding> vals;
    for (TensorId t : *outs) vals.push_back(Binding{Binding::Tensor, t, {}});
    bindTargets(targets, vals, c.off);
  }

  // fd.ops.add(S1, S2) etc. over scalars only: a derived scalar.
  void scalarOp(OpKind k, const std::vector<ValueRef>& in,
                const std::vector<std::pair<std::string, size_t>>& targets, const Node& c) {
    ScalarOp op;
    switch (k) {
      case OpKind::Add: op = ScalarOp::Add; break;
      case OpKind::Sub: op = ScalarOp::Sub; break;
      case OpKind::Mul: op = ScalarOp::Mul; break;
      case OpKind::Div: op = ScalarOp::Div; break;
      case OpKind::Maximum: op = ScalarOp::Max; break;
      case OpKind::Minimum: op = ScalarOp::Min; break;
      case OpKind::Neg: op = ScalarOp::Neg; break;
      default:
        error(DiagCode::ImportUnsupported,
              "scalar-only `fd.ops." + std::string(opName(k)) + "` is not modeled (only + - * / max min neg)",
              c.off);
        return;
    }
    ScalarId s = b_.derived(op, in[0].id, in.size() > 1 ? in[1].id : kNone);
    bindTargets(targets, {Binding{Binding::Scalar, s, {}}}, c.off);
  }

  void sizeCall(const std::string& name, const Node& c,
                const std::vector<std::pair<std::string, size_t>>& targets) {
    std::map<std::string, const Node*> a;
    if (!bindArgs(c, "fd.ops." + name, {"arg", "dim"}, a)) return;
    auto t = tensorArg(a.count("arg") ? a["arg"] : nullptr, "fd.ops." + name);
    if (!t) return;
    size_t rank = b_.nonReduction(*t).size();
    if (name == "shape") {
      Binding b{Binding::Vector, kNone, {}};
      for (size_t d = 0; d < rank; ++d) b.vec.push_back(f_.addSize(*t, static_cast<int32_t>(d)));
      bindTargets(targets, {b}, c.off);
      return;
    }
    auto d = intArg(a.count("dim") ? a["dim"] : nullptr, "dim");
    if (!d) return;
    int64_t dd = *d < 0 ? *d + static_cast<int64_t>(rank) : *d;
    if (dd < 0 || static_cast<size_t>(dd) >= rank) {
      error(DiagCode::ImportUnsupported, "fd.ops.size: dim out of range", a["dim"]->off);
      return;
    }
    bindTargets(targets, {Binding{Binding::Scalar, f_.addSize(*t, static_cast<int32_t>(dd)), {}}}, c.off);
  }

  // ---- multi-device schedule
  std::optional<std::vector<int64_t>> deviceList(const Node* n) {
    if (n && n->k == Node::Call && dotted(n->kids[0]) == "range" && n->kids.size() == 2) {
      auto cnt = intArg(&n->kids[1], "range");
      if (!cnt) return std::nullopt;
      std::vector<int64_t> r;
      for (int64_t i = 0; i < *cnt && i < 4096; ++i) r.push_back(i);
      return r;
    }
    return intList(n, "device mesh");
  }

  void defineMesh(const Node& c, const std::string& target) {
    if (c.kids.size() != 2) {
      error(DiagCode::ImportUnsupported, "DeviceMesh takes one list of devices", c.off);
      return;
    }
    const Node* arg = &c.kids[1];
    std::vector<int64_t> shape, devices;
    if (arg->k == Node::List && !arg->kids.empty() && arg->kids[0].k == Node::List) {
      for (const Node& row : arg->kids) {
        auto r = intList(&row, "device mesh row");
        if (!r) return;
        devices.insert(devices.end(), r->begin(), r->end());
      }
      shape = {static_cast<int64_t>(arg->kids.size()),
               static_cast<int64_t>(devices.size() / arg->kids.size())};
    } else {
      auto d = deviceList(arg);
      if (!d) return;
      devices = *d;
      shape = {static_cast<int64_t>(devices.size())};
    }
    DiagCode code{};
    std::string why = importedMeshProblem(devices, code);
    if (!why.empty()) error(code, why, arg->off);
    env_[target] = Binding{Binding::Mesh, f_.addMesh(shape, devices), {}};
  }

  void schedCall(const std::string& name, const Node& c,
                 const std::vector<std::pair<std::string, size_t>>& targets) {
    if (name == "_create_device_mesh") {
      if (targets.size() == 1) defineMesh(c, targets[0].first);
      return;
    }
    auto tensorAt = [&](size_t i) -> std::optional<TensorId> {
      if (c.kids.size() <= i) {
        error(DiagCode::ImportSyntax, "fd.sched." + name + " is missing arguments", c.off);
        return std::nullopt;
      }
      return tensorArg(&c.kids[i], "fd.sched." + name);
    };
    if (name == "_set_device_mesh") {
      auto t = tensorAt(1);
      if (!t || c.kids.size() < 3) return;
      const Node& m = c.kids[2];
      if (m.k != Node::Name || !env_.count(m.s) || env_[m.s].k != Binding::Mesh) {
        error(DiagCode::ImportUnresolved, "the second argument must name a DeviceMesh", m.off);
        return;
      }
      f_.tensors[*t].mesh = env_[m.s].id;
      return;
    }
    if (name == "parallelize" || name == "_parallelize") {
      auto t = tensorAt(1);
      if (!t || c.kids.size() < 4) return;
      auto ax = intArg(&c.kids[2], "axis");
      if (!ax) return;
      std::string pt = dotted(c.kids[3]);
      std::string leaf = pt.substr(pt.rfind('.') + 1);
      std::optional<ParallelType> p;
      if (leaf == "mesh_x" || leaf == "DIDx")
        p = ParallelType::DIDx;
      else if (leaf == "mesh_y" || leaf == "DIDy")
        p = ParallelType::DIDy;
      else if (leaf == "mesh_z" || leaf == "DIDz")
        p = ParallelType::DIDz;
      else if (leaf == "stream")
        p = ParallelType::Stream;
      if (!p) {
        error(DiagCode::ImportUnsupported, "unsupported parallel type `" + pt + "`", c.kids[3].off);
        return;
      }
      Tensor& tv = f_.tensors[*t];
      const auto& loop = tv.loopDomain();
      int64_t i = *ax < 0 ? *ax + static_cast<int64_t>(loop.size()) : *ax;
      if (i < 0 || static_cast<size_t>(i) >= loop.size()) {
        error(DiagCode::ImportUnsupported, "parallelize: axis out of range", c.kids[2].off);
        return;
      }
      f_.axes[loop[static_cast<size_t>(i)]].parallel = *p;
      return;
    }
    if (name == "split") {
      auto t = tensorAt(1);
      if (!t || c.kids.size() < 4) return;
      auto ax = intArg(&c.kids[2], "axis");
      auto factor = intArg(&c.kids[3], "factor");
      if (!ax || !factor) return;
      bool inner = true;
      if (c.kids.size() > 4) {
        auto v = boolArg(&c.kids[4], "inner_split");
        if (!v) return;
        inner = *v;
      }
      for (const auto& [k, v] : c.kwargs) {
        if (k != "inner_split") {
          error(DiagCode::ImportUnsupported, "unsupported argument `" + k + "` of fd.sched.split", v.off);
          return;
        }
        auto b = boolArg(&v, "inner_split");
        if (!b) return;
        inner = *b;
      }
      Tensor& tv = f_.tensors[*t];
      std::vector<AxisId> loop = tv.loopDomain();
      int64_t i = *ax < 0 ? *ax + static_cast<int64_t>(loop.size()) : *ax;
      if (i < 0 || static_cast<size_t>(i) >= loop.size() || *factor <= 0) {
        error(DiagCode::ImportUnsupported, "split: axis out of range or factor not positive", c.off);
        return;
      }
      AxisId src = loop[static_cast<size_t>(i)];
      ScalarId fac = b_.constInt(*factor);
      ScalarId rest = b_.derived(ScalarOp::CeilDiv, f_.axes[src].extent, fac);
      AxisId outer = b_.axis(f_.axes[src].iter, inner ? rest : fac);
      AxisId innr = b_.axis(f_.axes[src].iter, inner ? fac : rest);
      f_.axes[outer].owner = *t;
      f_.axes[innr].owner = *t;
      AxisTransform tr;
      tr.kind = AxisTransform::Kind::Split;
      tr.in = src;
      tr.out = outer;
      tr.out2 = innr;
      tr.factor = fac;
      tr.inner_split = inner;
      tv.transforms.push_back(tr);
      loop.erase(loop.begin() + i);
      loop.insert(loop.begin() + i, {outer, innr});
      tv.loop = loop;
      return;
    }
    if (name == "set_allocation_as_loop") {
      auto t = tensorAt(1);
      if (!t) return;
      Tensor& tv = f_.tensors[*t];
      tv.allocation = tv.loopDomain();
      tv.contiguity.clear();
      return;
    }
    error(DiagCode::ImportUnsupported, "unsupported schedule call `fd.sched." + name + "`", c.off);
  }

  // ---- inputs = [...]
  void concreteInputs(const Node& list) {
    if (list.k != Node::List) {
      error(DiagCode::ImportUnsupported, "`inputs` must be a list", list.off);
      return;
    }
    if (list.kids.size() != f_.inputs.size()) {
      error(DiagCode::BadConcreteInput,
            "`inputs` has " + std::to_string(list.kids.size()) + " entries but the fusion has " +
                std::to_string(f_.inputs.size()) + " inputs",
            list.off);
      return;
    }
    for (size_t i = 0; i < list.kids.size(); ++i) {
      const Node& n = list.kids[i];
      ValueRef v = f_.inputs[i];
      ConcreteInput ci;
      ci.value = v;
      if (v.isScalar()) {
        ConstValue cv;
        if (n.k == Node::Int) {
          cv.kind = ConstValue::Kind::Int;
          cv.i = n.i;
        } else if (n.k == Node::True || n.k == Node::False) {
          cv.kind = ConstValue::Kind::Bool;
          cv.i = n.k == Node::True;
        } else if (auto fv = floatLiteral(n)) {
          cv.kind = ConstValue::Kind::Float;
          cv.f = *fv;
        } else {
          error(DiagCode::BadConcreteInput, "input " + std::to_string(i) + " must be a scalar literal",
                n.off);
          continue;
        }
        ci.scalar = cv;
        f_.concrete_inputs.push_back(ci);
        continue;
      }
      if (!tensorInput(n, ci)) continue;
      size_t rank = b_.nonReduction(v.id).size();
      if (ci.shape.size() != rank) {
        error(DiagCode::BadConcreteInput,
              "input " + std::to_string(i) + " has rank " + std::to_string(ci.shape.size()) + " but " +
                  std::string(f_.tensorName(v.id)) + " has rank " + std::to_string(rank),
              n.off);
        continue;
      }
      f_.concrete_inputs.push_back(ci);
    }
  }

  // torch.randn((n,), ...).as_strided((sizes), (strides)), torch.testing.make_tensor((sizes), ...),
  // torch.randint(lo, hi, (n,), ...)..., torch.randn(2, 4, ...), torch.ones/zeros/empty/rand(...).
  bool tensorInput(const Node& n, ConcreteInput& ci) {
    if (n.k != Node::Call) {
      error(DiagCode::BadConcreteInput, "a tensor input must be a torch call", n.off);
      return false;
    }
    const Node& callee = n.kids[0];
    if (callee.k == Node::Attr && callee.s == "as_strided") {
      if (n.kids.size() != 3) {
        error(DiagCode::BadConcreteInput, "as_strided takes sizes and strides", n.off);
        return false;
      }
      auto sz = intList(&n.kids[1], "as_strided sizes");
      auto st = intList(&n.kids[2], "as_strided strides");
      if (!sz || !st) return false;
      ci.shape = *sz;
      ci.strides = *st;
      return true;
    }
    if (callee.k == Node::Attr && (callee.s == "cuda" || callee.s == "to" || callee.s == "contiguous")) {
      Node inner = callee.kids[0];
      return tensorInput(inner, ci);
    }
    std::string f = dotted(callee);
    const Node* shape_arg = nullptr;
    if (f == "torch.testing.make_tensor" || f == "torch.randn" || f == "torch.rand" || f == "torch.ones" ||
        f == "torch.zeros" || f == "torch.empty" || f == "torch.full") {
      if (n.kids.size() >= 2) shape_arg = &n.kids[1];
      for (const auto& [k, v] : n.kwargs)
        if (k == "size" || k == "shape") shape_arg = &v;
      // torch.randn(2, 4): several int positional sizes.
      if (shape_arg && shape_arg->k == Node::Int && f != "torch.full") {
        std::vector<int64_t> s;
        for (size_t i = 1; i < n.kids.size(); ++i) {
          auto v = intArg(&n.kids[i], "size");
          if (!v) return false;
          s.push_back(*v);
        }
        ci.shape = s;
        return true;
      }
    } else if (f == "torch.randint") {
      if (n.kids.size() >= 4) shape_arg = &n.kids[3];
      for (const auto& [k, v] : n.kwargs)
        if (k == "size") shape_arg = &v;
    } else {
      error(DiagCode::ImportUnsupported, "unsupported input constructor `" + (f.empty() ? "?" : f) + "`",
            n.off);
      return false;
    }
    if (!shape_arg) {
      error(DiagCode::BadConcreteInput, "cannot find the size of input `" + f + "`", n.off);
      return false;
    }
    auto s = intList(shape_arg, "size");
    if (!s) return false;
    ci.shape = *s;
    return true;
  }

  const SourceText& src_;
  DiagnosticSink& sink_;
  Fusion f_;
  ImportBuilder b_;
  std::unordered_map<std::string, Binding> env_;
  std::unordered_map<std::string, int64_t> int_consts_;
  std::string func_name_;
  bool saw_def_ = false;
  bool in_def_ = false;
  int errors_ = 0;
};

}  // namespace

std::optional<Fusion> importPython(const SourceText& source, DiagnosticSink& sink) {
  return Importer(source, sink).run();
}

}  // namespace fc
