#include "driver/run_cmd.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "diag/render.h"
#include "driver/run.h"
#include "exec/multirank/launcher.h"
#include "io/json_locate.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_status.h"
#endif

namespace fc::driver {

namespace {

// --ranks N: the launcher's checks, or nullopt when this process is a rank
// (RANK / WORLD_SIZE or OMPI_COMM_WORLD_* set) or may launch.
std::optional<int> checkRanks(const RunArgs& a, const Fusion& f, DiagnosticSink& sink,
                              std::optional<exec::multirank::RankEnv>& env) {
  std::string bad;
  env = exec::multirank::rankEnvFromEnvironment(&bad);
  if (!bad.empty()) {
    sink.error(DiagCode::Usage, "--ranks: " + bad);
    return kExitBadInput;
  }
  if (a.ranks < 1 || !(a.rank_timeout > 0)) {
    sink.error(DiagCode::Usage, "--ranks takes a positive number of ranks, --rank-timeout a positive time");
    return kExitBadInput;
  }
  if (env && env->world != a.ranks) {
    sink.error(DiagCode::RanksMismatch, "--ranks " + std::to_string(a.ranks) + " but the launcher (" +
                                            env->source + ") started " + std::to_string(env->world) +
                                            " processes");
    return kExitBadInput;
  }
  int64_t devices = exec::World(f).size();
  if (devices != a.ranks) {
    sink.error(DiagCode::RanksMismatch, "--ranks " + std::to_string(a.ranks) +
                                            " but the fusion's meshes cover " + std::to_string(devices) +
                                            " device" + (devices == 1 ? "" : "s") +
                                            "; run one process per device");
    return kExitBadInput;
  }
  if (!env && a.device == "cuda") {
    int gpus = 0;
    std::string why = "the CUDA backend is not built in";
#if FC_HAVE_CUDA
    gpus = exec::cuda::deviceCount(&why);
#endif
    if (gpus < a.ranks) {
      sink.error(DiagCode::RanksMismatch,
                 "--ranks " + std::to_string(a.ranks) +
                     " --device cuda needs one GPU per rank; this machine has " + std::to_string(gpus) +
                     (gpus ? "" : " (" + why + ")") +
                     " (several nodes: launch with torchrun or mpirun, docs/multigpu.md)");
      return kExitEnvironment;
    }
  }
  return std::nullopt;
}

}  // namespace

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
  std::optional<exec::multirank::RankEnv> env;
  if (a.ranks != 0) {
    if (auto rc = checkRanks(a, loaded->fusion, sink, env)) {
      emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
      return *rc;
    }
    if (!env) {  // the launcher: rank 0 prints the report
      auto lr = exec::multirank::launchLocal(a.ranks, a.rank_timeout, exec::multirank::selfArguments(), err);
      if (!lr.diagnostics.empty()) emitDiagnostics(lr.diagnostics, nullptr, OutputFormat::Text, err);
      return lr.exit_code;
    }
  }
  RunOptions ro;
  ro.device = a.device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
  if (!a.flags.era.empty() || loaded->fusion.era) ro.era = popts->era;
  ro.fix = a.fix;
  ro.against = against ? &against->fusion : nullptr;
  ro.file = a.file;
  ro.against_file = a.against;
  ro.reference = a.reference == "faithful" ? ReferenceKind::Faithful : ReferenceKind::Exact;
  if (!a.reference_device.empty())
    ro.reference_device = a.reference_device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
  ro.seed = a.seed;
  ro.rtol = a.rtol;
  ro.atol = a.atol;
  ro.max_bytes = a.max_bytes;
  ro.binds = popts->binds;
  RunResult r =
      env ? runFusionAsRank(loaded->fusion, ro, *env, a.rank_timeout) : runFusion(loaded->fusion, ro);
  fillLocations(r.diagnostics, loaded->source);
  if (env && env->rank != 0) {  // rank 0 reports; the others speak only of their own failures
    if (!r.diagnostics.empty()) {
      err << "fusecheck: rank " << env->rank << ":\n";
      renderText(r.diagnostics, &loaded->source, err);
    }
    return r.exit_code;
  }
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
