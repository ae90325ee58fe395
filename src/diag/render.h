// Renderers for diagnostics: text (file:line:col: error[CODE]: ... with the
// offending line and a caret), JSON, and SARIF 2.1.0. All three render the
// same Diagnostic values.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"

namespace fc {

// Colour in text diagnostics (as clang draws them: the severity in red or
// magenta, notes dim, the caret green). Auto: only on a stream that is
// std::cout or std::cerr attached to a terminal, and only when NO_COLOR is
// unset and TERM is not "dumb"; never in pipes, files or string streams.
enum class ColorMode { Auto, Always, Never };
// Process-wide (the CLI's --color); Auto until set.
void setColorMode(ColorMode m);
ColorMode colorMode();
// Whether text written to `os` is coloured under the current mode.
bool colorFor(const std::ostream& os);

// `source` may be null (no caret line then).
void renderText(const std::vector<Diagnostic>& diags, const SourceText* source, std::ostream& os);
// {"diagnostics":[{"severity","code","slug","message","location":{file,pointer,line,col},"notes":[...]}]}
std::string renderJson(const std::vector<Diagnostic>& diags);
// The diagnostics of any JSON document a command prints: every
// "diagnostics" array in it (at any depth) read back as renderJson writes
// them, in document order. nullopt when `text` is not JSON.
std::optional<std::vector<Diagnostic>> diagnosticsFromJson(std::string_view text);

// SARIF and GitHub annotations name files relative to a root (the
// repository a code-scanning upload annotates): artifact URIs relative to
// it with uriBaseId SRCROOT (an absolute file: URI outside it).
// Process-wide (the CLI's --sarif-root); "" (the default) is the current
// directory.
void setSarifRoot(std::string root);
const std::string& sarifRoot();
// `file` as the root sees it: "fixtures/x.json", or an absolute path when
// it is outside the root.
std::string pathFromRoot(const std::string& file);

// SARIF 2.1.0: one run, tool.driver.rules = every code, one result per diagnostic.
std::string renderSarif(const std::vector<Diagnostic>& diags, const std::string& tool_version);
// GitHub Actions workflow commands, one line per diagnostic:
// ::error file=F,line=L,col=C,title=fusecheck FC0301 unbound-extent::MESSAGE (notes after %0A).
std::string renderGithub(const std::vector<Diagnostic>& diags);

}  // namespace fc
