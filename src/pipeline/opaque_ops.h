// Opaque ops (ir/op_kind.h: ops fusecheck imports with nvFuser's output rules, or reads from a
// print, but has no shape rule for) in the pipeline. Such an op does not stop the analysis where
// nothing the pipeline checks can depend on it: a single-device fusion on a path that binds and
// concretizes the complete fusion before segmenting; an op whose outputs take their extents from
// its operands and that takes and gives no Symbolic axis (an indexing op, pipeline/indexing_ops.h,
// may: its root-domain map is modelled); a point where the transpose scheduler no
// longer merges Reduction axes of segment inputs, or a fusion without a reduction (before that, any
// cut around or inside the op may hand it one). An opaque expr that stands for a whole segment of a dump
// never passes. Anywhere else the op is an open question and the verdict is not decided.
#pragma once

#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc::pipeline_detail {

// Reports one open question (NotDecided) for each opaque op of `f` the pipeline cannot follow on
// `p`'s path, saying why; true when there was one.
bool opaqueOpsOpen(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink);

// The names of the opaque ops of `f`, each once, in expr order ("index_select, cumsum").
std::string opaqueOpNames(const Fusion& f);

}  // namespace fc::pipeline_detail
