// Scalars an importer made for a scalar op fusecheck does not compute (`fd.ops.sqrt(S)` on
// scalars): a free symbol of the op's result dtype, marked in the fusion's provenance
// ("uncomputed:<name>" -> the call, "sqrt(d3)"), so that the mark survives the JSON form. nvFuser
// computes such a value from its operands; a verdict that needs it is not decided rather than an
// unbound extent, unless the importer also recorded the free scalars it is computed from
// ("uncomputed-leaves:<name>" -> their names) and each of them is a fusion scalar input: nvFuser
// computes such a value inside every segment that uses it, from those inputs
// (SegmentCandidateFinder::resolveScalarsInGroup adds the scalar's defining exprs to the group and
// its definition-less leaves to the group's inputs, csrc/fusion_segmenter.cpp:4620-4766 @ 81c4b22fd;
// there since 831821f3a, 2023-03-12). On FusionExecutorCache's path a leaf may also be the extent
// of a fusion input tensor's axis: the runtime binds every such extent for all groups before the
// first runs (ArgumentManager::mapFusionInputsToArgs over prepareRuntimeOrder's
// group_extent_binding_order, csrc/runtime/fusion_cache_utils.cpp:91-110 and
// csrc/fusion_segmenter.cpp:5016-5030 @ 81c4b22fd).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/fusion.h"

namespace fc {

inline constexpr std::string_view kUncomputedScalar = "uncomputed:";
inline constexpr std::string_view kUncomputedLeaves = "uncomputed-leaves:";

// The provenance entry `prefix` + the name of scalar `s`, or nullopt.
inline std::optional<std::string> scalarProvenance(const Fusion& f, std::string_view prefix, ScalarId s) {
  if (s >= f.scalars.size()) return std::nullopt;
  const std::string key = std::string(prefix) + std::string(f.scalarName(s));
  for (const auto& [k, v] : f.provenance)
    if (k == key) return v;
  return std::nullopt;
}

// The call scalar `s` stands for ("sqrt(d3)"), or nullopt when it is no such scalar.
inline std::optional<std::string> uncomputedScalarCall(const Fusion& f, ScalarId s) {
  if (s >= f.scalars.size() || f.scalars[s].kind != ScalarKind::Symbol) return std::nullopt;
  return scalarProvenance(f, kUncomputedScalar, s);
}

// Marks symbol `s` as standing for `call`, a value nvFuser computes and fusecheck does not.
inline void markUncomputedScalar(Fusion& f, ScalarId s, std::string call) {
  f.provenance.emplace_back(std::string(kUncomputedScalar) + std::string(f.scalarName(s)), std::move(call));
}

// The names of the free scalars uncomputed scalar `s` is computed from, as recorded; nullopt when
// none were recorded.
inline std::optional<std::string> uncomputedScalarLeaves(const Fusion& f, ScalarId s) {
  return scalarProvenance(f, kUncomputedLeaves, s);
}

// Records the free scalars uncomputed scalar `s` is computed from: the leaves of `operands` through
// derived scalars (size(T, d) through the extent it reads) and other uncomputed scalars' records;
// an uncomputed operand without a record, or a size of an axis T does not have, is a leaf no
// segment is sure to have ("?").
void markUncomputedLeaves(Fusion& f, ScalarId s, std::span<const ScalarId> operands);

// True when uncomputed scalar `s` has recorded leaves, each a fusion scalar input or, with
// `input_extents` (FusionExecutorCache's path), the extent of a fusion input tensor's non-Reduction
// logical axis: nvFuser computes it wherever it is used.
bool uncomputedFromInputs(const Fusion& f, ScalarId s, bool input_extents);

}  // namespace fc
