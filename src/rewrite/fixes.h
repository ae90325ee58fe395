// Fixes: a fix changes how the program is segmented
// and built -- recorded in the repro as an explicit segmentation plus edge
// handling -- never the user's complete fusion.
//  - strip-reduction-axes: what nvFuser does from PR #2487 (segment inputs
//    lose their Reduction axes). Obligation: the stripped symbols have no
//    other use in the segment.
//  - forward-extent: what nvFuser's host-IR evaluator does from PR #2533 for
//    a scalar the segmenter forwards into a segment: bind it from the
//    extent of a tensor bound before. Obligation: the complete fusion binds
//    the symbol from a tensor.
// A fix is offered only on a profile where nvFuser itself does it at a later
// change point; each action names that change.
// Each fix is applied only where its obligation holds; otherwise the result
// says why and which fix to use instead. O(segments + diagnostics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "pipeline/pipeline.h"

namespace fc {

enum class FixKind { Auto, StripReductionAxes, ForwardExtent };
std::optional<FixKind> parseFixKind(
    const std::string& s);  // "auto", "strip-reduction-axes", "forward-extent"

struct FixAction {
  std::string fix;         // "strip-reduction-axes" | "forward-extent"
  std::string since;       // the change from which nvFuser does it: "#2487 (4afbdf52f, 2024-07-01)"
  std::string change;      // "segment 2: T5 [rS14{i0}, ...] -> [iS15{i3}, iS16{i6}]"
  std::string obligation;  // what was proven
};

// One proof obligation of a fix and how it was discharged (validated fixes,
// issue #9). For strip-reduction-axes there is one per (segment, stripped
// symbol): "i0 has no other use in segment 2". It holds when no scalar or
// value of the segment uses the symbol -- expr scalar operands, attributes
// (reshape / expand / factory shapes, pad widths, slice ranges, fill values,
// iota start and step), the extents of every axis the segment holds (its
// inputs' remaining axes, every produced tensor's root and logical axes) --
// or when the segment binds the symbol by other means (a remaining
// non-Reduction input axis whose extent it is, a scalar input, a forwarded
// extent). `discharge` says which; `uses` lists what breaks it.
struct Obligation {
  std::string fix;  // "strip-reduction-axes" | "forward-extent"
  uint32_t segment = 0;
  std::string tensor;  // the segment input whose axes are stripped ("T5")
  ScalarId symbol = kNone;
  std::string statement;  // "i0 has no other use in segment 2"
  bool holds = false;
  std::string discharge;          // "no expr, attribute or axis of segment 2 uses i0" / "bound by T3 axis 1"
  std::vector<std::string> uses;  // "expr 5 (div): scalar operand 1 (i0)", ...
};

struct FixResult {
  bool changed = false;
  Fusion fixed;  // the repro with segmentation + edge handling
  std::vector<FixAction> actions;
  std::vector<Obligation> obligations;  // every obligation checked, held or not
  std::vector<Diagnostic> refusals;     // FC0401: a fix whose obligation does not hold
};

// applyFixes to a fixpoint: a repair can uncover the next failure of the
// same program that nvFuser only reaches once the first is gone (an edge
// hazard, FC0302, behind an unbound extent, FC0301, of the same segment), so
// the repaired program is re-checked with `po` and fixed again, at most 4
// rounds. Actions, obligations and refusals of every round are kept.
FixResult applyFixesToFixpoint(const Fusion& f, const PipelineResult& before, const PipelineOptions& po,
                               FixKind kind, const std::string& file);

// The obligations of stripping the Reduction axes of every compute segment
// input of `sf` (the segmented program of `f`). O(size of the segments x
// stripped symbols).
std::vector<Obligation> stripObligations(const Fusion& f, const SegmentedFusion& sf);

// `f` with the segments of `r` made explicit and every segment input's
// Reduction axes stripped (PR #2487's rewrite), whether or not the pipeline
// needed it; nullopt when no compute segment input has a Reduction axis.
// The fuzzer uses it to test that stripping changes no computed value.
std::optional<Fusion> withStrippedInputs(const Fusion& f, const PipelineResult& r);

// Plans and applies fixes for the findings of `before` (a pipeline run on `f`).
FixResult applyFixes(const Fusion& f, const PipelineResult& before, FixKind kind, const std::string& file);

}  // namespace fc
