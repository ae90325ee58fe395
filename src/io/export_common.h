// Helpers shared by the exporters: a topological order of the exprs (producers before
// consumers, ties by expr index); double literals; lists written between brackets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// Every expr exactly once; exprs on a cycle (malformed input) come last in index order.
// Unlike topoOrder (ir/topo_order.h, nvFuser's order from the outputs), each
// expr follows its producers as early as the repro's own order allows, so
// that an exported definition read back numbers its tensors as before.
std::vector<ExprId> definitionOrder(const Fusion& f);

// `v` as a literal that reads back to the same double ("%.17g", with ".0" added to whole
// numbers); NaN and the infinities as the target language spells them.
std::string doubleLiteral(double v, const char* nan, const char* inf, const char* neg_inf);

// `open` f(v[0]), f(v[1]), ... `close`: "[1, 2]", "{a, b}".
template <typename T, typename F>
std::string joined(const std::vector<T>& v, F f, const char* open, const char* close) {
  std::string s = open;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += f(v[i]);
  }
  return s + close;
}

// What both exporters keep while they write: the fusion, the text so far, the names given to
// scalars, and the first failure (FC0602, reported once; the export then returns nothing).
class ExporterBase {
 protected:
  ExporterBase(const Fusion& f, DiagnosticSink& sink) : f_(f), sink_(sink) {}

  void fail(const std::string& m) {
    if (!failed_) sink_.error(DiagCode::ImportUnsupported, m);
    failed_ = true;
  }
  std::optional<int64_t> constInt(ScalarId s) const { return constIntOf(f_, s); }

  const Fusion& f_;
  DiagnosticSink& sink_;
  std::string body_;
  std::unordered_map<ScalarId, std::string> sname_;
  int next_scalar_ = 0;
  bool failed_ = false;
};

}  // namespace fc
