// The words of the verifier's diagnostics: how they name IR values, and
// the JSON pointers into the repro that they derive from ids.
#pragma once

#include <cstddef>
#include <string>

#include "ir/fusion.h"

namespace fc::verify {

std::string num(size_t v);
// /tensors/t and /exprs/e.
std::string tp(TensorId t);
std::string ep(ExprId e);
// Logical position j of tensor t: /tensors/t/logical/j.
std::string logicalPtr(TensorId t, size_t j);

// A tensor's name, or "tensor #t" when it has none.
std::string tensorDesc(const Fusion& f, TensorId t);
// "expr 4 (add)".
std::string exprDesc(const Fusion& f, ExprId e);
// An axis as nvFuser prints it: iter type letter, parallel type, number ("iS3").
std::string axisDesc(const Fusion& f, AxisId a);

}  // namespace fc::verify
