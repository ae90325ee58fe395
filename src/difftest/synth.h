// Synthetic repro generators for performance work: transformer-like blocks of about N exprs (single-device or
// tensor-parallel on a 1-D mesh), and the two public worst cases of
// nvFuser's segmenter written from their descriptions (#3510: a chain of
// Linear+ReLU layers; PR #1440: chained additions). Every generator builds
// through the library's op builder (io/import_builder.h, itself on the
// Fusion builders of ir/fusion.h), so outputs are shape-inferred the way the
// importers do it, and is deterministic: the same options give the same
// Fusion (and, through io/writer.h, the same bytes).
//
// Complexity: O(N) time and memory in the number of exprs generated.
#pragma once

#include <cstdint>

#include "ir/fusion.h"

namespace fc::synth {

struct TransformerOptions {
  uint64_t exprs = 1000;  // target expr count (the result has at least this many, < one block more)
  uint64_t seed = 0;      // picks block variants and concrete sizes
  bool sharded = false;   // tensor-parallel MLPs on a 2-device mesh (Allreduce / ReduceScatter)
};

// Transformer-like blocks: layer norm (var_mean), linear + bias, gelu,
// linear, bias add, reshape / permute round trips, residual add.
Fusion transformer(const TransformerOptions& opts);

// nvFuser #3510: x[128, 16] through `layers` x (linear with a 16x16 weight
// and a bias of 16, relu). 2 exprs per layer.
Fusion linearRelu(uint32_t layers);

// nvFuser PR #1440: `adds` chained additions t_{k+1} = t_k + x_{k+1}.
Fusion chainedAdds(uint32_t adds);

}  // namespace fc::synth
