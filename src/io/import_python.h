// Importer for nvFuser's Python repros: the scripts both frontends print (legacy `nvfuser`,
// `nvfuser_direct`) and the code users wrap around them (tests, helper functions, classes
// deriving from FusionDefinition, definitions written inline in the `with` block, inputs built
// with torch). The script is tokenized and parsed as Python (io/python/parser.h) and run by an
// interpreter (io/python/interpreter.h) against recording FusionDefinitions; the first fusion
// recorded is the result, with the concrete inputs `fd.execute(...)` (or a list named `inputs`)
// gave it. No Python at run time.
//
// Every problem is a located diagnostic (line:col in the script, empty JSON pointer): FC0601
// syntax, FC0602 a construct fusecheck does not model (naming it), FC0603 a name nothing
// defines (with "did you mean"), FC0114 inputs that do not fit. What is not about the fusion is
// skipped with a note each. A line of prose at the top level (a log line pasted with the
// script) is skipped with a note; any other syntax error is an error, and the rest of the
// script is still read so that later problems are reported too.
//
// Provenance records `imported_from` = nvfuser-python, `frontend` = legacy | direct, and
// `nvfuser_version` from a `# nvfuser version:` header.
//
// Complexity: linear in the script length plus what the script itself runs (loops are capped),
// plus the per-op shape inference, linear in ranks.
#pragma once

#include <optional>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/source_map.h"
#include "ir/fusion.h"

namespace fc {

// `map`, when given, is filled with where each tensor, scalar and expr was defined (offsets into
// `source`).
std::optional<Fusion> importPython(const SourceText& source, DiagnosticSink& sink, SourceMap* map = nullptr);

}  // namespace fc
