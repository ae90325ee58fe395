// Scalar evaluation with provenance: which scalars are known, their values
// (when binding is concrete), and where each known value came from.
// Evaluation of derived scalars is iterative (explicit stack), memoized,
// and overflow-checked. O(size of the expression DAG) per query, amortized.
#pragma once

#include <cstdint>
#include <memory>
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
  // The values and origins are left unwritten until a scalar becomes known:
  // on a 1M-expr fusion they are ~100 MB that binding reaches only in part.
  explicit ScalarEval(const Fusion& f)
      : f_(f),
        known_(f.scalars.size()),
        value_(std::make_unique_for_overwrite<int64_t[]>(f.scalars.size())),
        origin_(std::make_unique_for_overwrite<OriginSlot[]>(f.scalars.size())) {
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
  bool isBoundDirectly(ScalarId s) const { return state(s) == kBound; }
  // Where a known scalar's value came from; Kind::None for one not known.
  const Origin& origin(ScalarId s) const;

  // Free symbols (Symbol / Input kinds) an expression depends on, sorted.
  static std::vector<ScalarId> freeSymbols(const Fusion& f, ScalarId s);
  // Pushes onto `stack` the scalars a Derived scalar `s` is computed from: size(T, d)'s extent, or
  // its operands; nothing for another kind.
  static void pushOperands(const Fusion& f, ScalarId s, std::vector<ScalarId>& stack);

 private:
  // Per scalar, in known_: the state in the low bits, and kHasValue when it
  // is known with a concrete value (in value_). value_ and origin_ hold
  // something only for scalars whose state is kBound or kKnown.
  static constexpr uint8_t kUntried = 0, kUnknown = 1, kBound = 2, kKnown = 3;  // kKnown: constant or derived
  static constexpr uint8_t kStateMask = 3, kHasValue = 4;
  struct OriginSlot {
    alignas(Origin) unsigned char bytes[sizeof(Origin)];
  };
  uint8_t state(ScalarId s) const { return known_[s] & kStateMask; }
  bool known(ScalarId s) const { return state(s) >= kBound; }
  std::optional<int64_t> stored(ScalarId s) const {
    return (known_[s] & kHasValue) != 0 ? std::optional<int64_t>(value_[s]) : std::nullopt;
  }
  // Makes `s` known (kBound or kKnown) with `v` and `o`.
  void setKnown(ScalarId s, uint8_t st, std::optional<int64_t> v, const Origin& o);
  void setUnknown(ScalarId s) {
    known_[s] = kUnknown;
    unknown_.push_back(s);
  }
  void evaluate(ScalarId s);
  const Fusion& f_;
  std::vector<uint8_t> known_;
  std::unique_ptr<int64_t[]> value_;
  std::unique_ptr<OriginSlot[]> origin_;
  std::vector<ScalarId> unknown_;                 // scalars marked kUnknown, reset on bind
  std::vector<ScalarId> touched_;                 // scalars whose state left kUntried since the last reset()
  std::vector<std::pair<ScalarId, bool>> stack_;  // evaluate's walk, kept between calls
};

}  // namespace fc
