#include "driver/common.h"

#include <charconv>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <ostream>

#include "diag/render.h"
#include "io/json_locate.h"
#include "io/place_pointer.h"
#include "io/reader.h"
#include "ir/verifier.h"
#include "support/phase_times.h"
#include "support/suggest.h"
#include "support/version.h"

namespace fc::driver {

namespace {

struct ForcedFormat {
  bool json = false;
  std::optional<ImportFormat> import;
};
ForcedFormat& forced() {
  static ForcedFormat f;
  return f;
}

}  // namespace

bool forceReproFormat(std::string_view name) {
  if (name.empty() || name == "fusecheck") {
    forced() = {!name.empty(), std::nullopt};
    return true;
  }
  auto f = parseImportFormat(name);
  if (!f) return false;
  forced() = {false, f};
  return true;
}

std::optional<SourceText> readReproSource(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes) {
  if (path != "-") return readSourceFile(path, sink, max_bytes);
  std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (max_bytes > 0 && text.size() > max_bytes) {
    sink.error(DiagCode::FileTooLarge,
               "standard input has " + std::to_string(text.size()) + " bytes, more than --max-bytes " +
                   std::to_string(max_bytes),
               Location{"<stdin>", ""});
    return std::nullopt;
  }
  return SourceText("<stdin>", TextBuffer(text));
}

std::optional<Loaded> loadRepro(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes,
                                bool own_output) {
  Loaded l;
  auto src = readReproSource(path, sink, max_bytes);
  if (!src) return std::nullopt;
  l.source = std::move(*src);
  std::optional<ImportFormat> import;
  if (!own_output) import = forced().import;
  if (!own_output && !import && !forced().json) import = recognizeImportFormat(l.source.text());
  // A file named as Python or C++ without any marker of either (a test that builds no fusion) is
  // still read as what its name says, not as JSON: its importer says what is missing.
  if (!own_output && !import && !forced().json) import = importFormatOfName(path);
  l.imported = import;
  std::optional<Fusion> f;
  if (import) {
    PhaseScope import_phase("load: import");
    f = importFusion(l.source, sink, *import);
    if (f) f->rebuildUses();
  } else {
    ReadOptions ro;
    f = readFusion(l.source, sink, ro);
  }
  if (!f) return std::nullopt;
  l.fusion = std::move(*f);
  PhaseScope verify_phase("load: verify");
  bool ok = verifyLocated(l.fusion, sink, l.source, import.has_value());
  verify_phase.stop();
  if (!ok) return std::nullopt;
  return l;  // the reader built the uses; verifying changed nothing
}

void reportLoadWarnings(const DiagnosticSink& sink, const Loaded& l, const std::string& path,
                        std::ostream& out) {
  std::vector<Diagnostic> warnings;
  size_t notes = 0;
  for (const Diagnostic& d : sink.all()) {
    if (d.severity == Severity::Warning) warnings.push_back(d);
    if (d.severity == Severity::Note) ++notes;
  }
  renderText(warnings, &l.source, out);
  if (notes > 0)
    out << "note: loading " << path << " also made " << notes << (notes == 1 ? " note" : " notes")
        << " (`fusecheck import " << path << "` lists them)\n";
}

bool verifyLocated(const Fusion& f, DiagnosticSink& sink, const SourceText& source, bool imported) {
  size_t before = sink.all().size();
  bool ok = verifyFusion(f, sink, source.path());
  auto first = sink.all().begin() + static_cast<ptrdiff_t>(before);
  std::vector<Diagnostic> fresh(std::make_move_iterator(first), std::make_move_iterator(sink.all().end()));
  if (imported)
    fillSourcePositions(fresh, f);
  else
    fillLocations(fresh, source);
  std::move(fresh.begin(), fresh.end(), first);
  return ok;
}

void locateDiagnostics(std::vector<Diagnostic>& diags, const Loaded& l) {
  fillSourcePositions(diags, l.fusion);
  fillLocations(diags, l.source);
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
  PhaseScope profile_phase("profile: resolve the nvFuser point");
  auto profile = resolveProfile(ProfileRequest{flags.nvfuser, flags.frontend, flags.executor}, f);
  profile_phase.stop();
  if (auto* e = std::get_if<ProfileError>(&profile)) {
    auto& d = sink.error(DiagCode::Usage, e->message);
    if (!e->suggestions.empty()) {
      std::string list;
      for (const auto& s : e->suggestions) list += (list.empty() ? "" : ", ") + s;
      d.note("did you mean: " + list);
    }
    return std::nullopt;
  }
  o.profile = std::get<Profile>(std::move(profile));
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
      std::vector<std::string> named;
      for (ScalarId s = 0; s < f.scalars.size(); ++s)
        if (!f.scalarName(s).empty()) named.emplace_back(f.scalarName(s));
      sink.error(DiagCode::BadBinding, "--bind names '" + name + "', which is not a scalar of this fusion" +
                                           didYouMean(name, named));
      return std::nullopt;
    }
    o.binds[name] = v;
  }
  return o;
}

void emitDiagnostics(const std::vector<Diagnostic>& all, const SourceText* source, OutputFormat fmt,
                     std::ostream& out) {
  std::vector<Diagnostic> spelled;
  const std::vector<Diagnostic>& diags = withPointers(all, spelled);
  switch (fmt) {
    case OutputFormat::Text: renderText(diags, source, out); break;
    case OutputFormat::Json: out << renderJson(diags); break;
    case OutputFormat::Sarif: out << renderSarif(diags, std::string(buildVersion())); break;
    case OutputFormat::Github: out << renderGithub(diags); break;
  }
}

int badInput(const DiagnosticSink& sink, OutputFormat fmt, std::ostream& os) {
  emitDiagnostics(sink.all(), nullptr, fmt, os);
  return kExitBadInput;
}

int exitFor(const PipelineResult& r) {
  switch (r.verdict()) {
    case Verdict::Clean: return kExitClean;
    case Verdict::Findings: return kExitFindings;
    case Verdict::NotDecided: return kExitNotDecided;
  }
  return kExitClean;
}

int exitCodeFor(const std::vector<Diagnostic>& diags, int code_if_errors) {
  bool open = false;
  for (const auto& d : diags) {
    if (d.severity == Severity::Error) return code_if_errors;
    open |= d.severity == Severity::NotDecided;
  }
  return open ? kExitNotDecided : kExitClean;
}

}  // namespace fc::driver
