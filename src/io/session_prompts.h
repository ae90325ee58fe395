// Interactive Python sessions pasted as repros: a transcript of the standard REPL (`>>> `, `... `)
// or of IPython (`In [3]: `, `   ...: `, `Out[3]:`). The code after the prompts is the script;
// every other line (outputs, tracebacks, a crash message) is output of the session and is skipped.
// Line numbers are kept, so diagnostics point into the transcript (io/text_map.h).
//
// Complexity: linear in the text.
#pragma once

#include "diag/diagnostic.h"
#include "io/text_map.h"

namespace fc {

// The session's code, its prompts removed and its output lines blank, with one note (FC0604)
// saying what was read; the text itself when it is no session.
MappedText unprompt(const MappedText& text, DiagnosticSink& sink);

}  // namespace fc
