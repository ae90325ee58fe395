// Scalars an importer made for a scalar op fusecheck does not compute (`fd.ops.sqrt(S)` on
// scalars): a free symbol of the op's result dtype, marked in the fusion's provenance
// ("uncomputed:<name>" -> the call, "sqrt(d3)"), so that the mark survives the JSON form. nvFuser
// computes such a value from its operands; a verdict that needs it is not decided rather than an
// unbound extent, unless the importer also recorded the free scalars it is computed from
// ("uncomputed-leaves:<name>" -> their names) and each of them is a fusion scalar input: nvFuser
// computes such a value inside every segment that uses it, from those inputs
// (SegmentCandidateFinder::resolveScalarsInGroup adds the scalar's defining exprs to the group and
// its definition-less leaves to the group's inputs, csrc/fusion_segmenter.cpp:4620-4766 @ 81c4b22fd;
// there since 831821f3a, 2023-03-12).
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
// derived scalars and other uncomputed scalars' records; an extent read by size(T, d), or an
// uncomputed operand without a record, is a leaf no segment is sure to have ("?").
void markUncomputedLeaves(Fusion& f, ScalarId s, std::span<const ScalarId> operands);

// True when uncomputed scalar `s` has recorded leaves, each a fusion scalar input: nvFuser computes
// it wherever it is used.
bool uncomputedFromScalarInputs(const Fusion& f, ScalarId s);

}  // namespace fc
