#include "driver/fuzz_cmd.h"

#include <filesystem>
#include <ostream>

#include "difftest/random_fusion.h"
#include "driver/difftest.h"
#include "io/writer.h"
#include "pipeline/point.h"
#include "support/atomic_file.h"
#include "support/progress.h"

namespace fc::driver {

namespace {

// --emit DIR: the generated fusions themselves, fuzz-<seed>.json, for other
// checkers (the torch oracle's differential runner, python/fusecheck).
int emitFusions(const FuzzArgs& a, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(a.emit, ec);
  for (uint64_t i = 0; i < a.count; ++i) {
    uint64_t seed = a.seed + i;
    std::string path = (std::filesystem::path(a.emit) / ("fuzz-" + std::to_string(seed) + ".json")).string();
    std::string why = writeFileAtomic(path, writeFusion(difftest::randomFusion({seed, a.max_exprs})));
    if (!why.empty()) {
      err << "fusecheck fuzz: " << why << "\n";
      return kExitEnvironment;
    }
  }
  out << "wrote " << a.count << " fusions into " << a.emit << "\n";
  return kExitClean;
}

}  // namespace

int fuzz(const FuzzArgs& a, std::ostream& out, std::ostream& err) {
  if (!a.emit.empty()) return emitFusions(a, out, err);
  difftest::FuzzOptions o;
  o.seed = a.seed;
  o.count = a.count;
  o.max_exprs = a.max_exprs;
  o.minimize = a.minimize;
  if (!a.eras.empty()) {
    o.points.clear();
    for (const std::string& s : a.eras) {
      auto r = nv::resolvePoint(s);
      if (auto* e = std::get_if<nv::PointError>(&r)) {
        err << "fusecheck fuzz: " << e->message << "\n";
        return kExitBadInput;
      }
      o.points.push_back(s);
    }
  }
  if (a.minimize && !difftest::minimizerAvailable())
    err << "fusecheck fuzz: --minimize: no reducer is built into this fusecheck (src/reduce); findings are "
           "written as generated\n";
  ProgressLine line("fuzz", a.count);
  difftest::FuzzReport rep = difftest::runFuzz(o, [&](uint64_t done) {
    line.update(done, "seed " + std::to_string(a.seed + done - 1));
    if (a.progress && done % 1000 == 0) {
      line.finish();
      err << "fuzz: " << done << " / " << a.count << "\n" << std::flush;
    }
  });
  line.finish();
  std::vector<std::string> written;
  if (!a.out.empty() && !rep.findings.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.out, ec);
    for (size_t i = 0; i < rep.findings.size(); ++i) {
      const difftest::Finding& x = rep.findings[i];
      std::string path = (std::filesystem::path(a.out) / ("fuzz-" + std::to_string(x.seed) + "-" + x.check +
                                                          (x.era.empty() ? "" : "-" + x.era) + ".json"))
                             .string();
      std::string why = writeFileAtomic(path, difftest::findingRepro(x));
      if (!why.empty()) {
        err << "fusecheck fuzz: " << why << "\n";
        return kExitEnvironment;
      }
      written.push_back(path);
    }
  }
  if (a.format == OutputFormat::Json) {
    out << difftest::renderFuzzJson(rep, written);
  } else {
    out << difftest::renderFuzzText(rep);
    for (const std::string& p : written) out << "wrote " << p << "\n";
  }
  return rep.findings_total == 0 ? kExitClean : kExitFindings;
}

}  // namespace fc::driver
