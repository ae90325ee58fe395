// A tensor added as a fusion output twice, on FusionExecutorCache before #1310: the fusion
// compiled for an unsegmented fusion keeps one output per tensor while its single group lists
// each, so FusionKernelRuntime's output count check fails ("Output size does not match.").
#pragma once

#include <string>

#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

// Reports FC0318 into `sink` when `p` runs `f` through FusionExecutorCache at a point where the
// duplicate is dropped and `seg` is one segment; false (nothing reported) otherwise. O(outputs).
bool duplicateOutputFails(const Fusion& f, const SegmentedFusion& seg, const Profile& p,
                          const std::string& file, DiagnosticSink& sink);

}  // namespace fc
