// An explicit segmentation: the user's dumped segmented_fusion, or the one a
// fix wrote. Segments are listed in run order and name exprs by index; how
// segment inputs are rewritten and which symbols are forwarded into which
// segment is the "edge handling" that fixes record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ids.h"

namespace fc {

enum class InputRewrite : uint8_t {
  KeepReductions,   // before PR #2487: Reduction axes survive on segment inputs
  StripReductions,  // PR #2487: segment inputs lose their Reduction axes
};
std::string_view inputRewriteName(InputRewrite r);  // "keep-reductions" | "strip-reductions"
std::optional<InputRewrite> parseInputRewrite(std::string_view s);

struct SegmentSpec {
  std::vector<ExprId> exprs;
  std::string scheduler;  // "expr_eval", "pointwise", "communication", ... (free-form)
};

// forward-extent: pass `symbol` into `segment` as a scalar input bound on the
// producer side (or from the mesh size for a DID extent).
struct ForwardedExtent {
  uint32_t segment = 0;
  ScalarId symbol = kNone;
};

struct Segmentation {
  std::vector<SegmentSpec> segments;
  std::optional<InputRewrite> input_rewrite;  // unset: the era's rule
  std::vector<ForwardedExtent> forward;
  std::vector<std::string> applied_fixes;  // names of fixes that wrote this
};

}  // namespace fc
