#include "driver/run_cmd.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "diag/render.h"
#include "driver/executable.h"
#include "driver/run.h"
#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/file_inputs.h"
#include "exec/multirank/launcher.h"
#include "io/json_locate.h"
#include "ir/live_exprs.h"
#include "ir/rng_like.h"
#include "ir/uncomputed_scalar.h"
#include "support/progress.h"
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

// Reads --inputs / --inputs-per-rank; false (with a diagnostic located at
// the tensor file) when a file cannot be read.
bool readProvided(const RunArgs& a, exec::ProvidedInputs& p, DiagnosticSink& sink, int* rc) {
  std::string current;
  try {
    if (!a.inputs.empty()) {
      current = a.inputs;
      p.global = exec::readTensorFile(a.inputs, nullptr).tensors;
      p.source = a.inputs;
    }
    for (const std::string& f : a.inputs_per_rank) {
      current = f;
      p.per_rank.push_back(exec::readTensorFile(f, nullptr).tensors);
      p.rank_sources.push_back(f);
    }
  } catch (const exec::ExecError& e) {
    Location loc;
    loc.file = current;
    sink.error(e.code, e.message, loc);
    *rc = e.code == DiagCode::MissingTool ? kExitEnvironment : kExitBadInput;
    return false;
  }
  return true;
}

// Writes --save-inputs / --save-outputs after a run; a failure becomes a
// diagnostic of the result (FC0507 exit 2, FC0905 exit 3).
void saveTensors(const RunArgs& a, const Fusion& input_fusion, RunResult& r) {
  auto save = [&](const std::string& path, const exec::TensorFile& file) {
    try {
      exec::writeTensorFile(path, file);
    } catch (const exec::ExecError& e) {
      Diagnostic d;
      d.code = e.code;
      d.message = e.message;
      d.loc.file = path;
      r.diagnostics.push_back(std::move(d));
      r.exit_code = std::max<int>(
          r.exit_code, e.code == DiagCode::TensorFormatUnsupported ? kExitBadInput : kExitEnvironment);
      r.passed = false;
    }
  };
  if (!a.save_inputs.empty() && r.inputs)
    save(a.save_inputs, exec::inputsToFile(input_fusion, *r.inputs, r.seed));
  if (!a.save_outputs.empty()) {
    if (r.output_values.empty() && !input_fusion.outputs.empty()) {
      Diagnostic d;
      d.severity = Severity::Warning;
      d.code = DiagCode::ExecutionFailed;
      d.message = "--save-outputs: nothing written to " + a.save_outputs + ": the run produced no outputs";
      d.loc.file = a.save_outputs;
      r.diagnostics.push_back(std::move(d));
      return;
    }
    std::vector<std::pair<std::string, const exec::HostTensor*>> outs;
    for (const auto& [name, t] : r.output_values) outs.emplace_back(name, &t);
    save(a.save_outputs, exec::tensorsToFile(outs, "outputs"));
  }
}

}  // namespace

int run(const RunArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  std::optional<Loaded> against;
  if (loaded && !a.against.empty()) against = loadRepro(a.against, sink, a.max_bytes);
  if (!loaded || (!a.against.empty() && !against)) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  auto popts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!popts || (a.device != "cpu" && a.device != "cuda") ||
      (a.reference != "exact" && a.reference != "faithful") || (a.rtol.has_value() != a.atol.has_value())) {
    if (popts)
      sink.error(DiagCode::Usage,
                 "--device takes cpu|cuda, --reference exact|faithful, and --rtol goes with --atol");
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  DiagnosticSink mine, theirs;
  const bool executed = allOpsExecuted(loaded->fusion, a.file, mine);
  const bool executed_against = !against || allOpsExecuted(against->fusion, a.against, theirs);
  if (!executed || !executed_against) {
    locateDiagnostics(mine.all(), *loaded);
    if (against) locateDiagnostics(theirs.all(), *against);
    sink.append(std::move(mine));
    sink.append(std::move(theirs));
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitEnvironment;
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
  if (!a.inputs.empty() && !a.inputs_per_rank.empty()) {
    sink.error(DiagCode::Usage,
               "--inputs (global tensors) and --inputs-per-rank (local ones) exclude each other");
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  for (const std::string* path : {&a.save_inputs, &a.save_outputs})
    if (!path->empty() && !exec::tensorFormatOf(*path)) {
      sink.error(DiagCode::TensorFormatUnsupported,
                 *path + ": fusecheck writes .safetensors and .npz tensor files (by extension)");
      return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
    }
  exec::ProvidedInputs provided;
  bool has_inputs = !a.inputs.empty() || !a.inputs_per_rank.empty();
  if (has_inputs) {
    int rc = kExitBadInput;
    if (!readProvided(a, provided, sink, &rc)) {
      emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
      return rc;
    }
  }
  RunOptions ro;
  ro.inputs = has_inputs ? &provided : nullptr;
  ro.keep_values = !a.save_inputs.empty() || !a.save_outputs.empty();
  ro.device = a.device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
  ro.profile = popts->profile;
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
  std::optional<StepProgress> progress;
  if (!env || env->rank == 0)
    progress.emplace("run", a.progress == "always"  ? ProgressMode::Always
                            : a.progress == "never" ? ProgressMode::Never
                                                    : ProgressMode::Auto);
  RunResult r =
      env ? runFusionAsRank(loaded->fusion, ro, *env, a.rank_timeout) : runFusion(loaded->fusion, ro);
  progress.reset();
  locateDiagnostics(r.diagnostics, *loaded);
  if (env && env->rank != 0) {  // rank 0 reports; the others speak only of their own failures
    if (!r.diagnostics.empty()) {
      err << "fusecheck: rank " << env->rank << ":\n";
      renderText(r.diagnostics, &loaded->source, err);
    }
    return r.exit_code;
  }
  saveTensors(a, against ? against->fusion : loaded->fusion, r);
  if (a.format == OutputFormat::Json) {
    auto j = nlohmann::ordered_json::parse(renderRunJson(r));
    j["diagnostics"] = nlohmann::ordered_json::parse(renderJson(r.diagnostics))["diagnostics"];
    out << j.dump(2) << "\n";
  } else {
    reportLoadWarnings(sink, *loaded, a.file, out);
    renderRunText(r, out);
    renderText(r.diagnostics, &loaded->source, out);
  }
  return r.exit_code;
}

}  // namespace fc::driver
