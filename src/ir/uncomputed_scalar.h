// Scalars an importer made for a scalar op fusecheck does not compute (`fd.ops.sqrt(S)` on
// scalars): a free symbol of the op's result dtype, marked in the fusion's provenance
// ("uncomputed:<name>" -> the call, "sqrt(d3)"), so that the mark survives the JSON form. nvFuser
// computes such a value from its operands; a verdict that needs it is not decided rather than an
// unbound extent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ir/fusion.h"

namespace fc {

inline constexpr std::string_view kUncomputedScalar = "uncomputed:";

// The call scalar `s` stands for ("sqrt(d3)"), or nullopt when it is no such scalar.
inline std::optional<std::string> uncomputedScalarCall(const Fusion& f, ScalarId s) {
  if (s >= f.scalars.size() || f.scalars[s].kind != ScalarKind::Symbol) return std::nullopt;
  const std::string key = std::string(kUncomputedScalar) + std::string(f.scalarName(s));
  for (const auto& [k, v] : f.provenance)
    if (k == key) return v;
  return std::nullopt;
}

// Marks symbol `s` as standing for `call`, a value nvFuser computes and fusecheck does not.
inline void markUncomputedScalar(Fusion& f, ScalarId s, std::string call) {
  f.provenance.emplace_back(std::string(kUncomputedScalar) + std::string(f.scalarName(s)), std::move(call));
}

}  // namespace fc
