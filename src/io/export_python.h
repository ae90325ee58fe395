// Exporter to nvFuser's printed Python repro layout: `import torch`, the
// `def nvfuser_fusion_id0(fd : FusionDefinition) -> None :` body (define_tensor / define_scalar,
// fd.ops.* with nvFuser's argument names, add_output), a `multidevice_schedule` section for
// meshes, DID splits and parallelizations, `with FusionDefinition() as fd:` and, when the repro
// carries concrete inputs for every input, the `inputs = [...]` list and `fd.execute(inputs)`.
// importPython reads the result back to the same graph (names, axes, ops, attributes).
//
// Fails (with a diagnostic, FC0602) only for what the Python layout cannot express: a symbolic
// scalar used as a value that is neither a scalar input nor the extent of an input axis.
// Complexity: linear in the size of the fusion.
#pragma once

#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

std::optional<std::string> exportPython(const Fusion& f, DiagnosticSink& sink);

}  // namespace fc
