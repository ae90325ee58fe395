// Scalar evaluation with provenance: which scalars are known, their values
// (when binding is concrete), and where each known value came from.
// Evaluation of derived scalars is iterative (explicit stack), memoized,
// and overflow-checked. O(size of the expression DAG) per query, amortized.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "support/step_counters.h"

namespace fc {

// Where a known scalar value came from (provenance is data).
struct Origin {
  enum class Kind : uint8_t {
    None,
    Constant,      // a literal
    InputAxis,     // extent of a non-Reduction logical axis of an input tensor
    DidMesh,       // extent of a DID axis, from the mesh size (x local size at head)
    Expanded,      // expanded extent of an expanded broadcast input axis
    ScalarInput,   // a fusion (or segment) scalar input
    UserBind,      // --bind S=V
    ExactMap,      // propagated through exact-mapped axes
    Derived,       // computed from other known scalars
    RewriteFresh,  // fresh extent of an rfactor-product axis on a segment input
    Forwarded,     // forward-extent fix: passed into the segment as a scalar input
  };
  Kind kind = Kind::None;
  TensorId tensor = kNone;  // InputAxis / DidMesh / Expanded / RewriteFresh
  int32_t axis_pos = -1;    // logical position in `tensor`
  AxisId axis = kNone;
  AxisId via_axis = kNone;  // ExactMap: the axis whose known extent was copied
  ExprId via_expr = kNone;  // ExactMap: an expr relating the two axes
};

class ScalarEval {
 public:
  explicit ScalarEval(const Fusion& f)
      : f_(f), known_(f.scalars.size()), value_(f.scalars.size()), origin_(f.scalars.size()) {
    steps::counters.eval_slots += f.scalars.size();
  }

  // Forgets every binding and memoized evaluation, in time proportional to
  // what was touched since construction or the last reset (not to the
  // number of scalars): lets one evaluator serve many segment views.
  void reset();

  // Marks `s` as known with an optional concrete value. Returns false (and
  // changes nothing) if `s` is already known with a different value.
  bool bind(ScalarId s, std::optional<int64_t> value, Origin origin);

  // Known = bound, constant, or derived from known operands.
  bool isKnown(ScalarId s);
  // Evaluates every scalar: afterwards isKnown, value and origin only read,
  // so threads may share the evaluator (the pipeline's chunked passes).
  void evaluateAll();
  // The concrete value, when known and concrete.
  std::optional<int64_t> value(ScalarId s);
  // The value bound directly (not derived), if any.
  bool isBoundDirectly(ScalarId s) const { return known_[s] == 2; }
  const Origin& origin(ScalarId s) const { return origin_[s]; }

  // Free symbols (Symbol / Input kinds) an expression depends on, sorted.
  static std::vector<ScalarId> freeSymbols(const Fusion& f, ScalarId s);

 private:
  void evaluate(ScalarId s);
  const Fusion& f_;
  // 0 unknown-not-tried, 1 evaluated-unknown, 2 bound, 3 known (constant or derived)
  std::vector<uint8_t> known_;
  std::vector<std::optional<int64_t>> value_;
  std::vector<Origin> origin_;
  std::vector<ScalarId> unknown_;  // scalars marked 1, reset on bind
  std::vector<ScalarId> touched_;  // scalars whose state left 0 since the last reset()
};

}  // namespace fc
