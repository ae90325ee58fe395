// Importer for the Python repro scripts nvFuser prints on failure (reference §6): the legacy
// `def nvfuser_fusion_id0(fd : FusionDefinition) -> None :` layout and the newer nvfuser_direct
// one, multi-device schedule calls (`fd.sched._set_device_mesh`, `fd.sched.parallelize`,
// `fd.sched.split`, `fd.sched.set_allocation_as_loop`) and the `inputs = [...]` list as
// per-rank concrete inputs. A real tokenizer and recursive-descent parser for the subset these
// scripts use; no Python at run time; nesting is depth-limited.
//
// Every problem is a located diagnostic (line:col in the script, empty JSON pointer): FC0601
// syntax, FC0602 unsupported construct (naming it), FC0603 unresolved name. Statements the
// model does not need (imports, `with FusionDefinition() as fd:`, `fd.execute(inputs)`) are
// recognised and skipped; anything else outside the definition is a warning, never dropped
// silently.
//
// Complexity: linear in the script length (plus the per-op shape inference, linear in ranks).
#pragma once

#include <optional>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"

namespace fc {

std::optional<Fusion> importPython(const SourceText& source, DiagnosticSink& sink);

}  // namespace fc
