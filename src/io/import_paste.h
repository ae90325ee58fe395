// GitHub pastes: a repro as it reaches fusecheck from an issue, with the markdown around it and the
// damage rendering did to it. The importer finds the code blocks (``` and ~~~ fences, also
// indented, quoted with `>`, opened inside another fence or never closed), skips the prose around
// and between them with a note, picks the block that holds a repro (a Python definition first,
// then a C++ test, a segmented dump, printed IR), repairs it and imports it in its own form.
// Without fences the whole text is the block (an issue body copied as rendered text).
//
// Repairs, one note (FC0604) each:
//   - `>` quote markers and an indentation common to every line of the block;
//   - a diff (`diff --git`, `@@`, lines prefixed `+`, `-` or a space) becomes its new side;
//   - in printed IR: `**bold**` markers, bullets `•` standing for `+`, cast names whose leading
//     `__` Markdown took for bold (`half2float` is `__half2float`), backslash escapes (`\_`);
//   - in Python, two statements joined on one line by terminal wrapping are split again;
//   - an interactive session's prompts (`>>> `, `In [3]: `) are removed and its output skipped
//     (io/session_prompts.h, on every Python text).
// Diagnostics of the imported block point into the paste (io/text_map.h).
//
// Complexity: linear in the text.
#pragma once

#include <optional>
#include <string_view>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc {

struct ImportOptions;

// A text that is markdown rather than a bare repro: it has a code fence, or most of its lines are
// `>` quotes, or it is a diff.
bool looksLikePaste(std::string_view text);

std::optional<Fusion> importPaste(const MappedText& text, DiagnosticSink& sink, const ImportOptions& opts);

// The printed-IR repairs alone (bold, bullets, eaten `__`, escapes); the text itself when there is
// nothing to repair. The IR importer runs them on every text: a clean print never needs them.
MappedText repairPrintedIr(const MappedText& text, DiagnosticSink& sink);

// A diff's new side (context and `+` lines without their first character); the text itself when
// it is no diff.
MappedText undiff(const MappedText& text, DiagnosticSink& sink);

}  // namespace fc
