#include "driver/common.h"

#include <charconv>
#include <filesystem>
#include <ostream>

#include "diag/render.h"
#include "io/json_locate.h"
#include "io/reader.h"
#include "ir/verifier.h"
#include "support/phase_times.h"

namespace fc::driver {

std::optional<Loaded> loadRepro(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes) {
  Loaded l;
  ReadOptions ro;
  ro.max_bytes = max_bytes;
  auto f = readFusionFile(path, sink, l.source, ro);
  if (!f) return std::nullopt;
  l.fusion = std::move(*f);
  size_t before = sink.all().size();
  PhaseScope verify_phase("load: verify");
  bool ok = verifyFusion(l.fusion, sink, path);
  verify_phase.stop();
  std::vector<Diagnostic> fresh(sink.all().begin() + static_cast<ptrdiff_t>(before), sink.all().end());
  fillLocations(fresh, l.source);
  std::copy(fresh.begin(), fresh.end(), sink.all().begin() + static_cast<ptrdiff_t>(before));
  if (!ok) return std::nullopt;
  return l;  // the reader built the uses; verifying changed nothing
}

bool sameFile(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  fs::path pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
  fs::path pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return pa.lexically_normal() == pb.lexically_normal();
}

std::optional<PipelineOptions> pipelineOptions(const PipelineFlags& flags, const Fusion& f,
                                               const std::string& file, DiagnosticSink& sink) {
  PipelineOptions o;
  o.file = file;
  o.trace = flags.trace || !flags.print_after.empty() || !flags.dump_dir.empty();
  if (!flags.era.empty()) {
    auto e = parseEra(flags.era);
    if (!e) {
      sink.error(DiagCode::Usage, "unknown era '" + flags.era + "' (expected 2024-06, 2024-07 or head)");
      return std::nullopt;
    }
    o.era = *e;
  } else if (f.era) {
    o.era = *f.era;
  }
  for (const std::string& b : flags.binds) {
    auto eq = b.find('=');
    int64_t v = 0;
    if (eq == std::string::npos || eq == 0) {
      sink.error(DiagCode::Usage, "--bind expects S=V, got '" + b + "'");
      return std::nullopt;
    }
    std::string name = b.substr(0, eq);
    const char* first = b.data() + eq + 1;
    const char* last = b.data() + b.size();
    auto [p, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || p != last) {
      sink.error(DiagCode::Usage,
                 "--bind " + name + ": '" + std::string(first, last) + "' is not an integer");
      return std::nullopt;
    }
    if (!f.findScalar(name)) {
      sink.error(DiagCode::BadBinding, "--bind names '" + name + "', which is not a scalar of this fusion");
      return std::nullopt;
    }
    o.binds[name] = v;
  }
  return o;
}

void emitDiagnostics(const std::vector<Diagnostic>& diags, const SourceText* source, OutputFormat fmt,
                     std::ostream& out) {
  switch (fmt) {
    case OutputFormat::Text: renderText(diags, source, out); break;
    case OutputFormat::Json: out << renderJson(diags); break;
    case OutputFormat::Sarif: out << renderSarif(diags, "0.1.0"); break;
  }
}

int exitCodeFor(const std::vector<Diagnostic>& diags, int code_if_errors) {
  for (const auto& d : diags)
    if (d.severity == Severity::Error) return code_if_errors;
  return kExitClean;
}

}  // namespace fc::driver
