// The printed-IR reader's main loop, token helpers and diagnostics (see reader.h).
#include "io/ir/reader.h"

#include <algorithm>
#include <cctype>

namespace fc::ir_text {

Reader::Reader(const MappedText& text, const Lexer& lex, size_t begin, size_t end, DiagnosticSink& sink,
               ReadOptions opts)
    : TokenCursor(lex, begin, std::min(end, lex.tokens().size() - 1)),
      text_(text),
      begin_(begin),
      sink_(sink),
      opts_(opts) {}

// ---------------------------------------------------------------- tokens

bool Reader::expect(std::string_view punct) {
  if (eat(punct)) return true;
  return error(DiagCode::ImportSyntax, "expected '" + std::string(punct) + "'" + found(), p_);
}

bool Reader::eatWord(std::string_view w) {
  if (isIdent(p_, w)) {
    ++p_;
    return true;
  }
  return false;
}

std::string Reader::found() const {
  if (atEnd()) return ", found the end of the text";
  std::string s;
  for (size_t i = p_; i < end_ && s.size() < 12; ++i) {
    if (i > p_ && toks_[i].line_start) break;
    if (i > p_ && toks_[i].space_before) s += ' ';
    s += str(i);
  }
  if (s.size() > 16) s = s.substr(0, 16);
  return ", found '" + s + "'";
}

void Reader::skipLine() {
  ++p_;
  while (p_ < end_ && !toks_[p_].line_start) ++p_;
}

size_t Reader::lineEnd(size_t i) const {
  ++i;
  while (i < end_ && !toks_[i].line_start) ++i;
  return i;
}

// ---------------------------------------------------------------- diagnostics

Location Reader::loc(size_t i) const { return text_.location(tok(i).off); }

bool Reader::error(DiagCode c, std::string msg, size_t i) {
  ++errors_;
  sink_.error(c, std::move(msg), loc(i));
  return false;
}

void Reader::warning(DiagCode c, std::string msg, size_t i) {
  sink_.report(Severity::Warning, c, std::move(msg), loc(i));
}

void Reader::note(std::string msg, size_t i) {
  sink_.report(Severity::Note, DiagCode::ImportNote, std::move(msg), loc(i));
}

void Reader::flushSkipped() {
  if (skip_from_ == SIZE_MAX) return;
  int a = loc(skip_from_).line, b = loc(skip_to_).line;
  if (++skip_notes_ <= 20) {
    std::string what =
        a == b ? "line " + std::to_string(a) : "lines " + std::to_string(a) + "-" + std::to_string(b);
    note("skipped " + what + ": text that is not part of a print", skip_from_);
  } else if (skip_notes_ == 21) {
    note("more text that is not part of a print is skipped below without further notes", skip_from_);
  }
  skip_from_ = SIZE_MAX;
}

// ---------------------------------------------------------------- the main loop

// A header such as `Fusion before concretization:` or `Segmented_Fusion Dump: -- ...:{`: a line
// without tensors that names a fusion and ends with ':' (or ':{').
bool Reader::lineIsLabel(size_t i) const {
  size_t e = lineEnd(i);
  bool fusion = false;
  for (size_t k = i; k < e; ++k) {
    if (atTensor(k)) return false;
    std::string_view s = str(k);
    if (s.find("usion") != std::string_view::npos || s == "Segment") fusion = true;
  }
  if (!fusion || e - i > 16) return false;
  if (e - i == 2 && isIdent(i, "Segmented_Fusion") && isPunct(i + 1, "{")) return true;  // the dump's block
  return isPunct(e - 1, ":") || (e - i >= 2 && isPunct(e - 2, ":") && isPunct(e - 1, "{"));
}

std::optional<Fusion> Reader::run() {
  collectScalarStatements();
  while (p_ < end_ && errors_ < 50) {
    size_t before = p_;
    // After an error: on to the next statement. A statement cut by the end of the text (a
    // truncated paste) is an error too: the fusion without it would not be the one reported.
    if (!step()) resync(before);
  }
  flushSkipped();
  if (errors_) return std::nullopt;
  finish();
  if (errors_) return std::nullopt;
  auto where = [&](size_t i) { return static_cast<uint32_t>(text_.sourceOffset(tok(i).off)); };
  map_.tensors.assign(f_.tensors.size(), SourceMap::kUnknown);
  for (size_t t = 0; t < printed_.size() && t < f_.tensors.size(); ++t)
    map_.tensors[t] = where(printed_[t].tok);
  map_.exprs.assign(f_.exprs.size(), SourceMap::kUnknown);
  for (size_t e = 0; e < expr_tok_.size() && e < f_.exprs.size(); ++e) map_.exprs[e] = where(expr_tok_[e]);
  return std::move(f_);
}

size_t Reader::column(size_t i) const {
  std::string_view t = lex_.text();
  size_t off = tok(i).off, nl = t.rfind('\n', off == 0 ? 0 : off - 1);
  return nl == std::string_view::npos || off == 0 ? off : off - nl - 1;
}

// After an error in the statement that starts at `start`: on to the next line that can start a
// statement (a tensor print no further right than `start`, a block's brace, a header), so that
// the continuation lines of the failed statement give neither errors nor notes.
void Reader::resync(size_t start) {
  size_t col = column(start);
  if (p_ <= start) p_ = start;
  if (p_ < end_) skipLine();
  while (p_ < end_) {
    if (toks_[p_].line_start) {
      if (atTensor(p_) && column(p_) <= col) break;
      if (isPunct(p_, "}") || isPunct(p_, "%") || lineIsLabel(p_) || atScalarStatement()) break;
      if ((isIdent(p_, "Inputs") || isIdent(p_, "Outputs")) && isPunct(p_ + 1, ":")) break;
    }
    skipLine();
  }
}

bool Reader::step() {
  const Token& t = cur();
  // Structure lines nvFuser prints around and inside a dump: read silently.
  if (t.line_start && lineIsLabel(p_)) {
    mode_ = Mode::None;
    p_ = lineEnd(p_);
    return true;
  }
  if ((isIdent(p_, "Inputs") || isIdent(p_, "Outputs")) && isPunct(p_ + 1, ":") && t.line_start &&
      !host_signature_) {
    flushSkipped();
    mode_ = str(p_) == "Inputs" ? Mode::Inputs : Mode::Outputs;
    p_ += 2;
    return true;
  }
  if (isPunct(p_, "%") && isIdent(p_ + 1)) {
    std::string_view w = str(p_ + 1);
    if (w == "HostIrContainer") {
      flushSkipped();
      p_ += 2;
      if (eat("{")) ++brace_depth_;
      host_depth_ = brace_depth_;
      mode_ = Mode::None;
      return hostSignature();
    }
    if (w == "kernel_math" || w == "kernel" || w == "Kernel") {
      flushSkipped();
      p_ += 2;
      if (eat("{")) ++brace_depth_;
      mode_ = Mode::None;
      in_transforms_ = false;
      // A kernel's `(inputs) -> (outputs)` on its first line (`%Kernel { (T0_g[...]) -> (...)`).
      if (isPunct(p_, "(") && atTensor(p_ + 1)) return hostSignature();
      return true;
    }
  }
  if (isIdent(p_, "TransformPrinter") && isPunct(p_ + 1, ":")) {
    flushSkipped();
    p_ += 2;
    transformSection();
    return true;
  }
  if (opts_.segmented || details_) {
    size_t before = p_;
    if (segmentStep()) return true;
    if (errors_ || p_ != before) return false;
  }
  if (host_depth_ >= 0) {
    size_t before = p_;
    if (hostStep()) return true;
    if (p_ != before) return false;
  }
  if (skipAllocation()) return true;
  if (atTensor(p_)) {
    flushSkipped();
    if (mode_ != Mode::None) return listEntry();
    return statement();
  }
  if (mode_ != Mode::None && isIdent(p_) && listEntry()) return true;
  if (atScalarStatement()) {
    flushSkipped();
    return scalarStatement();
  }
  if (isPunct(p_, "{")) ++brace_depth_;
  if (isPunct(p_, "}")) {
    mode_ = Mode::None;
    if (brace_depth_ > 0) --brace_depth_;
    if (host_depth_ >= 0 && brace_depth_ < host_depth_) host_depth_ = -1;
    ++p_;
    return true;
  }
  // `(12)` after a group's expr, `...` elisions: no notes for these.
  if (isPunct(p_, "(") && tok(p_ + 1).kind == Tok::Number && isPunct(p_ + 2, ")") && t.line_start) {
    p_ += 3;
    return true;
  }
  if (isPunct(p_, ".") && t.line_start) {
    while (isPunct(p_, ".")) ++p_;
    return true;
  }
  if (skip_from_ == SIZE_MAX) skip_from_ = p_;
  skip_to_ = p_;
  ++p_;
  return true;
}

// One entry of an `Inputs:` / `Outputs:` list: `T0_g[ ... ], float`, `T0_g_float[...]`,
// `i5, int64_t`, `i3`; in a group's lists `T0_g[ ... ] float`. A tensor followed by `=` (or by
// `,` and another tensor) starts an expr instead: the list has ended.
bool Reader::listEntry() {
  size_t start = p_;
  if (atTensor(p_)) {
    auto t = tensor();
    if (!t) return false;
    bool statement_follows = isPunct(p_, "=") ||
                             (isPunct(p_, "(") && isIdent(p_ + 1) && isPunct(p_ + 2, ")")) ||
                             (isPunct(p_, ",") && atTensor(p_ + 1));
    if (statement_follows) {
      p_ = start;
      mode_ = Mode::None;
      return statement();
    }
    if (isPunct(p_, ",") && isIdent(p_ + 1)) ++p_;
    if (isIdent(p_) && !tok(p_).line_start) {
      if (auto dt = cppDType(str(p_))) {
        setDType(*t, *dt);
        ++p_;
      }
    }
    if (mode_ == Mode::Inputs) {
      ValueRef v = ValueRef::tensor(*t);
      if (std::find(listed_inputs_.begin(), listed_inputs_.end(), v) == listed_inputs_.end())
        listed_inputs_.push_back(v);
    } else if (mode_ == Mode::Outputs) {
      if (std::find(listed_outputs_.begin(), listed_outputs_.end(), *t) == listed_outputs_.end())
        listed_outputs_.push_back(*t);
    } else if (mode_ == Mode::GroupOutputs && group_ >= 0) {
      group_outputs_[static_cast<size_t>(group_)].push_back(*t);
    } else if (mode_ == Mode::GroupInputs && group_ >= 0) {
      group_inputs_[static_cast<size_t>(group_)].push_back(*t);
    }
    return true;
  }
  // A scalar entry: a name alone on its line, or followed by `, <type>`.
  if (mode_ != Mode::Inputs && mode_ != Mode::Outputs) return false;
  if (!isIdent(p_) || cppDType(str(p_))) return false;
  size_t e = lineEnd(p_);
  std::optional<DType> dt;
  size_t next = p_ + 1;
  if (isPunct(next, ",") && isIdent(next + 1) && cppDType(str(next + 1))) {
    dt = cppDType(str(next + 1));
    next += 2;
  }
  bool alone = next == e || atTensor(next) || (isIdent(next) && !cppDType(str(next)) && next < e && dt);
  if (!alone) return false;
  std::string name(str(p_));
  if (name == "true" || name == "false" || name == "inf" || name == "nan") return false;
  ScalarId s = symbol(name);
  f_.scalars[s].kind = ScalarKind::Input;
  if (dt) f_.scalars[s].dtype = *dt;
  if (mode_ == Mode::Inputs) {
    ValueRef v = ValueRef::scalar(s);
    if (std::find(listed_inputs_.begin(), listed_inputs_.end(), v) == listed_inputs_.end())
      listed_inputs_.push_back(v);
  }
  p_ = next;
  return true;
}

std::optional<DType> cppDType(std::string_view s) {
  static constexpr lex::Spelling<DType> kAliases[] = {{"int32_t", DType::Int32}};
  return lex::dtypeSpelled(s, dtypeCppName, kAliases);
}

}  // namespace fc::ir_text
