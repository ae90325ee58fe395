// Renderers for diagnostics: text (file:line:col: error[CODE]: ... with the
// offending line and a caret), JSON, and SARIF 2.1.0. All three render the
// same Diagnostic values.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"

namespace fc {

// `source` may be null (no caret line then).
void renderText(const std::vector<Diagnostic>& diags, const SourceText* source, std::ostream& os);
// {"diagnostics":[{"severity","code","slug","message","location":{file,pointer,line,col},"notes":[...]}]}
std::string renderJson(const std::vector<Diagnostic>& diags);
std::string renderSarif(const std::vector<Diagnostic>& diags, const std::string& tool_version);

}  // namespace fc
