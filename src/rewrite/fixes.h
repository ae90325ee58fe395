// Fixes (DESIGN §2 "Fixes"): a fix changes how the program is segmented
// and built -- recorded in the repro as an explicit segmentation plus edge
// handling -- never the user's complete fusion.
//  - strip-reduction-axes: PR #2487's input rewrite (segment inputs lose
//    their Reduction axes). Obligation: the stripped symbols have no other
//    use in the segment.
//  - forward-extent: pass a needed symbol into the segment as a scalar
//    input bound on the producer side (or from the mesh for a DID extent).
//    Obligation: the complete fusion binds the symbol.
// Each fix is applied only where its obligation holds; otherwise the result
// says why and which fix to use instead. O(segments + diagnostics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "ir/fusion.h"

namespace fc {

enum class FixKind { Auto, StripReductionAxes, ForwardExtent };
std::optional<FixKind> parseFixKind(
    const std::string& s);  // "auto", "strip-reduction-axes", "forward-extent"

struct FixAction {
  std::string fix;         // "strip-reduction-axes" | "forward-extent"
  std::string change;      // "segment 2: T5 [rS14{i0}, ...] -> [iS15{i3}, iS16{i6}]"
  std::string obligation;  // what was proven
};

struct FixResult {
  bool changed = false;
  Fusion fixed;  // the repro with segmentation + edge handling
  std::vector<FixAction> actions;
  std::vector<Diagnostic> refusals;  // FC0401: a fix whose obligation does not hold
};

// Plans and applies fixes for the findings of `before` (a pipeline run on `f`).
FixResult applyFixes(const Fusion& f, const PipelineResult& before, FixKind kind, const std::string& file);

}  // namespace fc
