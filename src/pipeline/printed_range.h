// The verdict on a repro its print style dates to a range of nvFuser's history, with no point
// asked for (Profile::printed_range): nvFuser's verdict at every change point of that range, on
// the path asked for or the one assumed at each point. Where the range agrees, that verdict,
// replayed at its last point, with a note saying it holds over the range; where it does not, the
// verdict is not decided (FC1001), each stretch of the range named with its verdict and the
// change that starts it, since only the point the repro ran at decides.
//
// Complexity: walkPoints over the range (one pipeline run per change in it), then one more run
// at its last point.
#pragma once

#include "pipeline/pipeline.h"

namespace fc {

// `opts.profile.printed_range` must be set; runPipeline calls this for such a profile.
PipelineResult runOverPrintedRange(const Fusion& f, const PipelineOptions& opts);

}  // namespace fc
