#include "driver/run_cmd.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "diag/render.h"
#include "exec/run.h"
#include "io/json_locate.h"

namespace fc::driver {

int run(const RunArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  std::optional<Loaded> against;
  if (loaded && !a.against.empty()) against = loadRepro(a.against, sink, a.max_bytes);
  if (!loaded || (!a.against.empty() && !against)) {
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitBadInput;
  }
  auto popts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!popts || (a.device != "cpu" && a.device != "cuda") ||
      (a.reference != "exact" && a.reference != "faithful") || (a.rtol.has_value() != a.atol.has_value())) {
    if (popts)
      sink.error(DiagCode::Usage,
                 "--device takes cpu|cuda, --reference exact|faithful, and --rtol goes with --atol");
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitBadInput;
  }
  RunOptions ro;
  ro.device = a.device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
  if (!a.flags.era.empty() || loaded->fusion.era) ro.era = popts->era;
  ro.fix = a.fix;
  ro.against = against ? &against->fusion : nullptr;
  ro.file = a.file;
  ro.against_file = a.against;
  ro.reference = a.reference == "faithful" ? ReferenceKind::Faithful : ReferenceKind::Exact;
  ro.seed = a.seed;
  ro.rtol = a.rtol;
  ro.atol = a.atol;
  ro.max_bytes = a.max_bytes;
  ro.binds = popts->binds;
  RunResult r = runFusion(loaded->fusion, ro);
  fillLocations(r.diagnostics, loaded->source);
  if (a.format == OutputFormat::Json) {
    auto j = nlohmann::ordered_json::parse(renderRunJson(r));
    j["diagnostics"] = nlohmann::ordered_json::parse(renderJson(r.diagnostics))["diagnostics"];
    out << j.dump(2) << "\n";
  } else {
    renderRunText(r, out);
    renderText(r.diagnostics, &loaded->source, out);
  }
  return r.exit_code;
}

}  // namespace fc::driver
