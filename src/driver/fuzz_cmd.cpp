#include "driver/fuzz_cmd.h"

#include <filesystem>
#include <ostream>

#include "driver/difftest.h"
#include "support/atomic_file.h"

namespace fc::driver {

int fuzz(const FuzzArgs& a, std::ostream& out, std::ostream& err) {
  difftest::FuzzOptions o;
  o.seed = a.seed;
  o.count = a.count;
  o.max_exprs = a.max_exprs;
  o.minimize = a.minimize;
  if (!a.eras.empty()) {
    o.eras.clear();
    for (const std::string& s : a.eras) {
      auto e = parseEra(s);
      if (!e) {
        err << "fusecheck fuzz: unknown era '" << s << "' (expected 2024-06, 2024-07 or head)\n";
        return kExitBadInput;
      }
      o.eras.push_back(*e);
    }
  }
  if (a.minimize && !difftest::minimizerAvailable())
    err << "fusecheck fuzz: --minimize: no reducer is built into this fusecheck (src/reduce); findings are "
           "written as generated\n";
  difftest::FuzzReport rep = difftest::runFuzz(o, [&](uint64_t done) {
    if (a.progress && done % 1000 == 0) err << "fuzz: " << done << " / " << a.count << "\n" << std::flush;
  });
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
