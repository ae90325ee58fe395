// Structural and type verification of a Fusion (DESIGN §2 step 1): names
// unique, references resolve, acyclic, per-op arity / rank / dtype / iter
// type consistency, well-formed extents, valid meshes, well-formed explicit
// segmentation and concrete inputs. Every problem is a located diagnostic
// (JSON pointer into the repro; line:col is filled in by the caller from
// the source text). Linear in the size of the fusion.
#pragma once

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// Returns true when no error was reported. `file` is copied into locations.
bool verifyFusion(const Fusion& f, DiagnosticSink& sink, const std::string& file = {});

}  // namespace fc
