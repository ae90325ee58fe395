// Producer -> consumer axis correspondence of one expr (nvFuser's pairwise
// root/logical domain map). The producer side is the input's non-Reduction
// logical domain; the consumer side is the output's root domain when it has
// one, else its logical domain. `exact` marks pairs that nvFuser's exact
// map would join (same extent: not broadcast->iteration, not resized).
// O(rank) per call.
#pragma once

#include <vector>

#include "ir/fusion.h"
#include "ir/sharding.h"

namespace fc {

struct ShapeRule;

struct AxisPair {
  AxisId producer = kNone;
  AxisId consumer = kNone;
  bool exact = true;
};

// Pairs between tensor operand `input_index` of `e` and output `output_index`.
// Returns an empty vector when the operand is a scalar or the op maps no
// axes (factories, reshape without a root). Never reads out of range on a
// malformed expr (the verifier reports those).
std::vector<AxisPair> mapProducerConsumer(const Fusion& f, ExprId e, size_t input_index,
                                          size_t output_index = 0);
// The same pairs appended to `out` (no allocation when `out` has room).
void appendProducerConsumer(const Fusion& f, ExprId e, size_t input_index, size_t output_index,
                            std::vector<AxisPair>& out);

// For mapping several operands of one expr: its shape rule built once into
// `rule` (false when the expr maps nothing), then each operand's pairs.
bool buildAxisRule(const Fusion& f, ExprId e, ShapeRule& rule);
void appendProducerConsumer(const Fusion& f, ExprId e, const ShapeRule& rule, size_t input_index,
                            size_t output_index, std::vector<AxisPair>& out);

// Non-Reduction logical axes of a tensor.
std::vector<AxisId> noReductions(const Fusion& f, const std::vector<AxisId>& dom);

bool isSharded(const Fusion& f, TensorId t);

}  // namespace fc
