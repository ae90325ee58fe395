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

// nvFuser's stride_order of fusion input `t` (define_tensor's `stride_order`,
// TensorViewBuilder::strideOrder): for each logical axis (Reduction axes left out), its position
// in the allocation order counted from the innermost. Empty when the allocation is the logical
// order, or is no permutation of it.
std::vector<int64_t> strideOrderOf(const Fusion& f, TensorId t);

// How many elements a strided view of `sizes` and `strides` spans from its first (the size of the
// buffer `as_strided` needs); 0 when a size is 0.
int64_t stridedSpan(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// The operand of a random factory shaped like a tensor (rand_like / randn_like: `flags` set,
// ops.def): the first tensor marked in `written` whose non-Reduction axes have the factory's
// sizes as extents, Broadcast where its flags say so and Iteration elsewhere, with the factory's
// dtype. Nothing when no written tensor fits.
std::optional<TensorId> rngLikeOperand(const Fusion& f, const Expr& e, const std::vector<uint8_t>& written);

// Whether `t` has a schedule a repro states beside its mesh: a loop domain of its own, or a loop axis of a
// device or stream parallel type. A tensor without a mesh may have one (the sharding passes give
// it a mesh later).
bool scheduled(const Fusion& f, const Tensor& t);

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
// scalars, and the first failure (FC0602 at its place, reported once; the export then returns
// nothing).
class ExporterBase {
 protected:
  ExporterBase(const Fusion& f, DiagnosticSink& sink) : f_(f), sink_(sink) {}

  // `where`: the part of the repro that cannot be written (none: the repro as a whole).
  void fail(const std::string& m, Place where = {}) {
    if (!failed_) {
      Location loc;
      loc.place = std::move(where);
      sink_.error(DiagCode::ImportUnsupported, m, std::move(loc));
    }
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
