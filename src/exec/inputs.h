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
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "exec/host_tensor.h"
#include "exec/scalar_values.h"
#include "exec/sharding.h"
#include "ir/fusion.h"

namespace fc::exec {

// How the shards of a tensor input make its global tensor.
struct ShardLayout {
  Shape global;                // the global shape
  std::vector<ShardDim> dims;  // the sharded dims
  std::optional<Mesh> mesh;    // the tensor's mesh, if any
  std::vector<int64_t> ranks;  // the world rank of each mesh position, in mesh order
};

struct InputValue {
  bool is_tensor = true;
  std::vector<std::optional<HostTensor>> local;  // per world rank (empty where it does not live)
  // The global tensor, unless `shards_only`: then it is not held (empty) and
  // `layout` says how the shards make it (assembleGlobal, or on the device).
  HostTensor global;
  bool shards_only = false;
  // The shards went to generateInputs' sink as they were made: `local` holds
  // none (HeldInputs::None).
  bool shards_in_sink = false;
  ShardLayout layout;
  ScalarValue scalar;
  DType dtype = DType::Float;
};

struct RunInputs {
  std::vector<InputValue> values;  // by fusion input position
};

// The global shape of a tensor input, whether or not its global tensor is held.
const Shape& globalShape(const InputValue& v);
// The global tensor of a tensor input: a copy of `global`, or the shards
// assembled by `layout` when only they are held. O(numel).
HostTensor assembleGlobal(const InputValue& v, MemoryBudget* budget);

// What generateInputs keeps on the host: every rank's shard and the global
// tensor they make; the shards alone (a reference assembles the global
// tensor where it runs); or nothing, each distinct shard handed to a sink as
// it is made (a GPU run uploads it and drops it: the host holds one shard at
// a time).
enum class HeldInputs { ShardsAndGlobal, ShardsOnly, None };

// Takes a shard of input position `p` held by world ranks `ranks` (replicas
// hold the same shard).
using ShardSink = std::function<void(size_t p, const std::vector<int64_t>& ranks, HostTensor&& shard)>;

// Generates the inputs of `f` and binds `f`'s symbols into `scalars`; with
// HeldInputs::None every tensor shard goes to `sink`.
// Throws ExecError (BadConcreteInput / EvaluationFailed) on a bad description.
RunInputs generateInputs(const Fusion& f, const World& world, ScalarValues& scalars, uint64_t seed,
                         int64_t default_extent, MemoryBudget* budget,
                         HeldInputs held = HeldInputs::ShardsAndGlobal, const ShardSink* sink = nullptr);

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
