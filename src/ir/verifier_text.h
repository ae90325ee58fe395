// The words of the verifier's diagnostics: how they name IR values, and
// the places in the repro that they derive from ids.
#pragma once

#include <cstddef>
#include <string>

#include "diag/place.h"
#include "ir/fusion.h"

namespace fc::verify {

using F = PlaceField;

std::string num(size_t v);
// Tensor t and expr e.
inline Place tp(TensorId t) { return Place::tensor(t); }
inline Place ep(ExprId e) { return Place::expr(e); }
// Logical position j of tensor t.
inline Place logicalPlace(TensorId t, size_t j) { return tp(t).at(PlaceField::Logical, j); }
// Position k of the segmentation's segment s.
inline Place segmentExprPlace(size_t s, size_t k) { return Place::segment(s).at(PlaceField::Exprs, k); }

// A tensor's name, or "tensor #t" when it has none.
std::string tensorDesc(const Fusion& f, TensorId t);
// "expr 4 (add)".
std::string exprDesc(const Fusion& f, ExprId e);
// An axis as nvFuser prints it: iter type letter, parallel type, number ("iS3").
std::string axisDesc(const Fusion& f, AxisId a);

}  // namespace fc::verify
