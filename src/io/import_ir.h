// Importer for nvFuser's printed IR (reference §1.5): Fusion::printMath / print output in the
// mid-2024 spaced style (`T4_g[ iS11{i3}, rS13{i2} ] (DeviceMesh{0 1})`, `Inputs:` lines with
// `, __half`) and the newer style (`T0_g_float[iS0{i0}]`), `%kernel_math { ... }` and
// `%kernel { ... }` blocks, several dumps in one file (a tensor printed again must agree), and
// bare expressions pasted from bug reports. Every expr form printed by src/ir/printer.cpp reads
// back (print -> import -> print is the identity); cast names are accepted with or without the
// leading `__` that Markdown tends to eat.
//
// Names, axis numbers, extents and meshes are kept as printed. Missing facts are inferred:
// fusion inputs are tensors used but never defined, outputs those defined but never used
// (unless `Inputs:` / `Outputs:` lists say), op attributes from the domains (permute dims from
// the axis numbering, reduction dims from the Reduction axes, 2024 broadcast flags from the
// domains), dtypes from the lists, the head-style names, cast names and reduction initial values
// and then forward through the ops; a dtype that cannot be inferred is a warning (FC0602) and
// defaults to Float. Problems are located diagnostics (line:col): FC0601 syntax, FC0602
// unsupported construct, FC0603 a tensor printed twice with different domains.
//
// Complexity: linear in the text (scalar expressions and brackets are depth-limited).
#pragma once

#include <optional>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"

namespace fc {

std::optional<Fusion> importIr(const SourceText& source, DiagnosticSink& sink);

namespace detail {
// The shared reader; `segmented_dump` also reads NVFUSER_DUMP=segmented_fusion group details
// into an explicit segmentation (see import_segments.h).
std::optional<Fusion> importPrinted(const SourceText& source, DiagnosticSink& sink, bool segmented_dump);
}  // namespace detail

}  // namespace fc
