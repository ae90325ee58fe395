// JSON renderings of pipeline results (segments, provenance records), shared
// by check / segment / explain. Provenance JSON comes from the same
// UnboundExtent records that the text notes come from.
#pragma once

#include <string>

#include "pipeline/pipeline.h"

namespace fc::driver {

// The JSON verdict (schemas/verdict.schema.json): {"file", "profile",
// "verdict", "order", "checked", "approximations", "not_decided",
// "whole_first", "input_rewrite", "segments", "edges", "unbound",
// "diagnostics"} as a JSON text. `f` is the fusion the result refers to
// (PipelineResult::fusion).
std::string pipelineJson(const Fusion& f, const PipelineResult& r, const std::string& file);

}  // namespace fc::driver
