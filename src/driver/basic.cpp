#include "driver/basic.h"

#include <ostream>

#include "diag/render.h"
#include "io/writer.h"
#include "support/atomic_file.h"
#include "support/keep_until_exit.h"

namespace fc::driver {
namespace {

// Diagnostics go to stdout in machine formats (they are the result), and
// to stderr in text when stdout carries another result.
void report(const DiagnosticSink& sink, const SourceText* src, OutputFormat fmt, std::ostream& out,
            std::ostream& err) {
  if (fmt == OutputFormat::Text)
    emitDiagnostics(sink.all(), src, fmt, err);
  else
    emitDiagnostics(sink.all(), src, fmt, out);
}

// The repro of a, or nullopt after reporting why it does not load.
std::optional<Loaded> load(const ReproArgs& a, DiagnosticSink& sink, std::ostream& out, std::ostream& err) {
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) report(sink, nullptr, a.format, out, err);
  return loaded;
}

}  // namespace

int validate(const ValidateArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  const SourceText* src = loaded ? &loaded->source : nullptr;
  if (a.format == OutputFormat::Text) {
    emitDiagnostics(sink.all(), src, a.format, err);
    if (loaded)
      out << a.file << ": ok (" << loaded->fusion.tensors.size() << " tensors, "
          << loaded->fusion.exprs.size() << " exprs)\n";
  } else {
    emitDiagnostics(sink.all(), src, a.format, out);
  }
  if (!loaded) return kExitBadInput;
  keepUntilExit(*loaded);
  return kExitClean;
}

int print(const PrintArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = load(a, sink, out, err);
  if (!loaded) return kExitBadInput;
  out << printFusionMath(loaded->fusion, a.style);
  return kExitClean;
}

int convert(const ConvertArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = load(a, sink, out, err);
  if (!loaded) return kExitBadInput;
  // Format /1 -> /2: the era a repro records becomes its nvFuser point
  // (the era names are points: 2024-06, 2024-07, head).
  Fusion& f = loaded->fusion;
  if (f.era && !f.nvfuser) {
    f.nvfuser = RecordedPoint{std::string(eraName(*f.era)), "", ""};
    f.era.reset();
  }
  std::string text = writeFusion(f);
  std::string target = a.in_place ? a.file : a.output;
  if (target.empty() || target == "-") {
    out << text;
    return kExitClean;
  }
  if (!a.in_place && sameFile(target, a.file)) {
    sink.error(DiagCode::Usage, "refusing to overwrite the input " + a.file + " without --in-place");
    report(sink, nullptr, a.format, out, err);
    return kExitBadInput;
  }
  std::string why = writeFileAtomic(target, text);
  if (!why.empty()) {
    sink.error(DiagCode::WriteFailed, why);
    report(sink, nullptr, a.format, out, err);
    return kExitEnvironment;
  }
  return kExitClean;
}

}  // namespace fc::driver
