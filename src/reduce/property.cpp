#include "reduce/property.h"

#include <utility>

namespace fc {

ReduceProperty diagnosticProperty(DiagCode code, PipelineOptions opts, std::string message_contains) {
  opts.trace = false;
  return [code, opts = std::move(opts), needle = std::move(message_contains)](const Fusion& f) {
    PipelineResult r = runPipeline(f, opts);
    for (const Diagnostic& d : r.diagnostics) {
      if (d.code != code) continue;
      if (needle.empty() || d.message.find(needle) != std::string::npos) return true;
      for (const Note& n : d.notes)
        if (n.message.find(needle) != std::string::npos) return true;
    }
    return false;
  };
}

}  // namespace fc
