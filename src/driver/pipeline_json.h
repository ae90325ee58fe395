// JSON renderings of pipeline results (segments, provenance records), shared
// by check / segment / explain. Provenance JSON comes from the same
// UnboundExtent records that the text notes come from.
#pragma once

#include <string>

#include "pipeline/pipeline.h"

namespace fc::driver {

// {"era", "whole_first", "input_rewrite", "segments": [...], "edges": [...],
//  "unbound": [...], "diagnostics": [...]} as a JSON text.
std::string pipelineJson(const Fusion& f, const PipelineResult& r, const std::string& file);

}  // namespace fc::driver
