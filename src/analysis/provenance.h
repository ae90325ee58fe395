// Provenance of an unbound extent: where the symbol was born,
// which ops and segment edges carried it to the failing segment, how the
// whole fusion binds it, whether the segment needs its value, and which fix
// applies. Provenance is data: the text, JSON and SARIF renderings and the
// DOT highlighting all come from this record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/binding.h"
#include "analysis/scalar_eval.h"
#include "analysis/segmented_fusion.h"
#include "analysis/unbound_use.h"

namespace fc {

struct Hop {
  TensorId tensor = kNone;
  AxisId axis = kNone;
  ExprId expr = kNone;       // the expr that produced `tensor` (kNone at the birth)
  uint32_t segment = kNone;  // segment running `expr`
};

struct UnboundExtent {
  int segment = -1;  // -1: the whole fusion
  ScalarId symbol = kNone;
  std::vector<UnboundUse> uses;  // every place in the view that needs it; uses[0] is reported
  std::vector<Hop> hops;         // birth first, ending at uses[0]'s axis
  Origin whole_origin;           // how the complete fusion binds it (Kind::None: it does not)
  std::optional<int64_t> whole_value;
  bool needed = false;           // some value in the view depends on it
  bool missing_input = false;    // the segment's executor has no value for it (FC0310), not FC0301
  bool strip_applies = false;    // strip-reduction-axes discharges it
  bool forward_applies = false;  // forward-extent discharges it
};

// Walks back from (tensor, axis) through producers whose mapped axis carries
// `symbol`. Bounded by the number of exprs.
std::vector<Hop> traceHops(const Fusion& f, const SegmentedFusion* sf, TensorId t, AxisId a, ScalarId symbol);

// "T0 axis 0 (DIDx) = DeviceMesh{0 1}.size() = 2", "--bind i3=128", ...
std::string describeOrigin(const Fusion& f, ScalarId s, const Origin& o, std::optional<int64_t> value,
                           DidBindingRule did);

}  // namespace fc
