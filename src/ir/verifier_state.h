// What the verifier's checks learn about a fusion, for the checks after
// them: which tensor owns each axis, which tensors and exprs are usable,
// what each scalar folds to, who produces each tensor, a topological order
// of the exprs. Built by the sequential checks (verifier_checks.h) or, for
// a large fusion that is clean, by the same checks in chunks
// (verifier_chunks.h); in both cases it ends up the same.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "ir/fusion.h"
#include "ir/verifier_sites.h"

namespace fc::verify {

struct VerifyState {
  explicit VerifyState(const Fusion& fusion) : f(fusion) {}

  const Fusion& f;

  // Per axis: the tensor whose slots name it first (its owner).
  std::vector<TensorId> axis_owner;
  uint32_t max_axis_number = 0;  // of the axes that tensors own
  // Per tensor: false when a domain references a bad axis.
  std::vector<char> tensor_ok;

  // Per scalar: what the scalar checks learned.
  std::vector<char> scalar_bad;  // dangling operand or part of a cycle
  std::vector<char> scalar_int;  // integer-valued
  std::vector<std::optional<int64_t>> scalar_const;
  std::vector<char> scalar_overflow;  // constant operands, but folding overflows or divides by 0
  std::vector<char> scalar_reported;  // an axis field already reported it
  // Where each scalar first appears; seeded when a diagnostic first needs
  // one (after the axes are claimed).
  std::vector<ScalarSite> scalar_site;
  std::once_flag sites_seeded;

  // Per expr: false when a reference is dangling or the arity is wrong.
  std::vector<char> expr_ok;
  // Per tensor: first producing expr and the output slot.
  std::vector<ExprId> producer;
  std::vector<uint32_t> producer_slot;
  std::vector<uint32_t> input_pos;  // position in fusion inputs, kNone if not an input
  std::vector<char> undefined_reported;
  // Exprs in a topological order (Kahn, FIFO from id order); exprs on or
  // after a cycle are appended in id order. Built by the cycle check, or
  // when the op checks need it.
  std::vector<ExprId> order;
  bool order_ready = false;

  bool tensorValid(TensorId t) const { return t < f.tensors.size(); }
  // The op checks may look at expr e: its references resolve, its arity is
  // right and the domains of its tensors are well formed.
  bool exprUsable(ExprId e) const {
    if (!expr_ok[e]) return false;
    const Expr& x = f.exprs[e];
    for (const ValueRef& v : x.inputs)
      if (v.isTensor() && !tensor_ok[v.id]) return false;
    for (TensorId t : x.outputs)
      if (!tensor_ok[t]) return false;
    return true;
  }
};

}  // namespace fc::verify
