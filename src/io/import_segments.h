// Importer for NVFUSER_DUMP=segmented_fusion output (nvFuser's SegmentedFusion print,
// csrc/fusion_segmenter.cpp): the re-written complete fusion (printMath) and the
// `group details:` section, one `g{(scheduler)` block per segment with its inputs, outputs and
// exprs. The result is the complete fusion with an explicit segmentation: segments in the
// dump's (run) order, each naming its exprs and its scheduler (`none` when the dump shows no
// heuristic). Built on the printed-IR reader (import_ir.h); every expr must belong to exactly
// one group, else FC0603; a dump without group details is FC0601.
//
// Complexity: linear in the text.
#pragma once

#include <optional>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc {

std::optional<Fusion> importSegments(const SourceText& source, DiagnosticSink& sink);
std::optional<Fusion> importSegments(const MappedText& text, DiagnosticSink& sink, SourceMap* map = nullptr);

}  // namespace fc
