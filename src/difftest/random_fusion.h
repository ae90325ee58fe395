// Random well-formed fusions for the differential fuzzer (`fusecheck fuzz`,
// issue #9). Each fusion is built op by op through the library's op builder
// (io/import_builder.h), so shapes are inferred the way the importers infer
// them, and is a pure function of (seed, options): the same seed gives the
// same Fusion on every machine (difftest/rng.h, no std distributions).
//
// What is generated (docs/fuzz.md has the list with probabilities):
//  - inputs of rank 1-3 with symbolic (fresh i<n>, concrete size in
//    concrete_inputs) or constant extents, dtypes Float / Half / BFloat16 /
//    Double;
//  - unary and binary math, casts, scalar operands (constants and extents
//    used as values: `x / i0`, the mean-across-an-edge shape of FC0401),
//    broadcasts, sum / max / mean reductions (keepdim sometimes), permutes,
//    reshapes (static and dynamic: split and merge of adjacent axes),
//    full / iota factories (fill values that are extents), matmul and linear;
//  - half of the fusions are multi-device: a 1-D mesh of 2-4 devices, inputs
//    DIDx-sharded on axis 0 (local size 1, the 2024 model), row-parallel
//    matmuls, and the patterns nvFuser lowers to Allreduce (sum over the DID
//    axis), ReduceScatter (sum over the DID axis with DIDx moved to a split
//    of another axis) and Allgather (a set that drops DIDx).
// Sizes are small (every extent 1-6) so that the CPU executor runs a fusion
// in well under a millisecond. O(max_exprs) time.
#pragma once

#include <cstdint>

#include "ir/fusion.h"

namespace fc::difftest {

struct RandomFusionOptions {
  uint64_t seed = 0;
  uint32_t max_exprs = 12;  // ops generated (a few more for multi-op patterns)
};

Fusion randomFusion(const RandomFusionOptions& opts);

}  // namespace fc::difftest
