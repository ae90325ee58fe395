// Run inputs: per-rank local tensors and their global view, generated
// deterministically (exec/rng.h) with the repro's concrete_inputs shapes and
// strides, and the symbol bindings they imply (as nvFuser binds its inputs: only
// non-Reduction logical axes bind; expanded broadcasts bind their expanded
// extent; a DID axis binds local size x mesh size).
//
// Shapes without a concrete description: constant extents as written,
// Broadcast axes 1, DID axes local 1, symbols already bound in `scalars`
// (--bind) their value, other unbound symbols `default_extent`. Strides: the
// rank's storage is `span` values generated in storage order and viewed
// through the strides (as torch's as_strided), so a stride 0 repeats values.
// A concrete input's `range` draws values uniformly from [low, high) (floor
// for integers), its `fill` sets every one. O(total elements + storage span).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "exec/host_tensor.h"
#include "exec/scalar_values.h"
#include "exec/sharding.h"
#include "ir/fusion.h"

namespace fc::exec {

struct InputValue {
  bool is_tensor = true;
  std::vector<std::optional<HostTensor>> local;  // per world rank (empty where it does not live)
  HostTensor global;
  ScalarValue scalar;
  DType dtype = DType::Float;
};

struct RunInputs {
  std::vector<InputValue> values;  // by fusion input position
};

// Generates the inputs of `f` and binds `f`'s symbols into `scalars`.
// Throws ExecError (BadConcreteInput / EvaluationFailed) on a bad description.
RunInputs generateInputs(const Fusion& f, const World& world, ScalarValues& scalars, uint64_t seed,
                         int64_t default_extent, MemoryBudget* budget);

// The scalar inputs of `f` (pass 1 of generateInputs): a value already
// bound in `scalars` (--bind), else the repro's concrete value, else a
// generated one; sizes `in.values` to f.inputs. Positions where
// `(*provided)[p]` is true are left to the caller.
void generateScalarInputs(const Fusion& f, ScalarValues& scalars, uint64_t seed, int64_t default_extent,
                          RunInputs& in, const std::vector<bool>* provided);

// Binds the extents of `t`'s materialized axes to the global shape `global`,
// or checks them against values already bound; ExecError with `code` at
// `where` on a contradiction.
void bindTensorShape(const Fusion& f, TensorId t, const Shape& global, ScalarValues& scalars,
                     const Place& where, DiagCode code);

// Binds `f`'s symbols from inputs made for another fusion (--against):
// matched by position; dtypes, kinds and per-rank shapes must agree
// (ExecError with AgainstMismatch otherwise).
void bindInputs(const Fusion& f, const World& world, const RunInputs& in, ScalarValues& scalars);

// Binds `f`'s symbols from the inputs' global shapes and scalar values
// alone (matched by position), for a fusion that runs on one device with
// those global tensors (the exact reference on the GPU); per-rank shards
// and dtypes are not looked at. ExecError (AgainstMismatch) as bindInputs.
void bindGlobalShapes(const Fusion& f, const RunInputs& in, ScalarValues& scalars);

}  // namespace fc::exec
