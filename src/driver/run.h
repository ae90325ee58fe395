// The library entry point behind `fusecheck run`:
// generate inputs, compute the reference of the unsegmented fusion (or of
// `against`), replay the profile's pipeline (optionally with fixes), execute the
// segmented program segment by segment with simulated collectives, and
// compare every output. Returns data; the driver prints it (text or JSON).
//
// Exit codes: 0 every output within tolerance; 1 findings (the
// era fails at a segment — the pipeline's own diagnostics —, a numerics
// mismatch, an op that cannot be evaluated); 2 bad input (concrete inputs,
// --against fusions that do not match); 3 environment (FC0904: an
// allocation beyond max_bytes, refused before allocating; FC0902: no CUDA
// backend). Internal errors propagate as fc::InternalError (exit 4).
// Cost: the references' and the segmented program's op costs; memory is
// bounded by max_bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "exec/compare.h"
#include "exec/file_inputs.h"
#include "exec/multirank/transport.h"
#include "exec/segmented_executor.h"
#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

enum class RunDevice : uint8_t { Cpu, Cuda };
enum class ReferenceKind : uint8_t { Exact, Faithful };
std::string_view runDeviceName(RunDevice d);          // "cpu" | "cuda"
std::string_view referenceKindName(ReferenceKind k);  // "exact" | "faithful"

// Runs the segmented program in place of the built-in executors (the
// arguments of exec::runSegmented); multi-process runs (exec/multirank)
// run one rank's share with it and gather the outputs to rank 0.
using SegmentedExecutor = std::function<exec::SegmentedRun(
    const SegmentedFusion&, const exec::World&, const exec::RunInputs&, exec::ScalarValues&,
    exec::MemoryBudget*, std::optional<uint32_t> stop_at, std::vector<exec::SegmentRun>* progress)>;

struct RunOptions {
  RunDevice device = RunDevice::Cpu;
  std::optional<Profile> profile;   // unset: the repro's own (defaultProfile)
  bool fix = false;                 // apply the fixes the pipeline proposes (strip-reduction-axes, ...)
  const Fusion* against = nullptr;  // compare with this fusion's reference (inputs matched by position)
  std::string file;                 // for diagnostic locations
  std::string against_file;
  ReferenceKind reference = ReferenceKind::Exact;
  // Where the reference is computed. Unset: the exact reference runs on the
  // GPU with --device cuda (exec/cuda/cuda_reference.h: fp64 kernels and
  // DGEMM; production shapes are teraflops in fp64), else on the host; the
  // faithful reference always runs on the host.
  std::optional<RunDevice> reference_device;
  std::optional<uint64_t> seed;  // unset: the reference repro's seed, else 0
  std::optional<double> rtol;    // with atol: replaces the tolerance policy
  std::optional<double> atol;
  uint64_t max_bytes = 0;      // 0: unlimited
  int64_t default_extent = 8;  // size of an unbound input extent without concrete_inputs
  // --bind: passed to the pipeline, and sizes the generated inputs (a bound
  // symbol takes its value instead of default_extent).
  std::map<std::string, int64_t> binds;
  // The user's tensors (--inputs, --inputs-per-rank, the Python API) in
  // place of generated inputs (exec/file_inputs.h); null: generated.
  const exec::ProvidedInputs* inputs = nullptr;
  bool keep_values = false;   // keep the inputs and the outputs' values in the result
  SegmentedExecutor execute;  // unset: the CPU or CUDA executor of `device`
  bool compare = true;        // false: no reference, no comparison (ranks other than 0)
  std::string communicator;   // the result's communicator name, when `execute` is set
};

struct RunResult {
  int exit_code = 0;
  bool passed = false;
  std::vector<Diagnostic> diagnostics;
  std::string file, against_file;
  RunDevice device = RunDevice::Cpu;
  Profile profile;
  bool fix = false;
  std::vector<std::string> fix_actions;  // "strip-reduction-axes: segment 2: T5 ..."
  ReferenceKind reference = ReferenceKind::Exact;
  RunDevice reference_device = RunDevice::Cpu;
  uint64_t seed = 0;
  std::string communicator;  // "simulated-ring"
  int64_t ranks = 1;
  std::vector<exec::SegmentRun> segments;
  std::vector<exec::Comparison> outputs;
  uint64_t peak_bytes = 0;
  bool inputs_from_file = false;
  std::string inputs_source;  // the file(s) the inputs came from
  // With keep_values: the run's inputs, and each output's global value (as
  // the segmented program computed it) by output position with its name.
  std::optional<exec::RunInputs> inputs;
  std::vector<std::pair<std::string, exec::HostTensor>> output_values;
};

// `f` (and `*opts.against`) must have passed the verifier.
RunResult runFusion(const Fusion& f, const RunOptions& opts);

// This process as rank `env.rank` of a multi-process run: runFusion with the
// rank's session (exec/multirank/rank_session.h) as the executor. Rank 0
// gathers the outputs and compares them; the other ranks return a result
// without outputs. A rank that cannot join (world size, device, bootstrap)
// returns its diagnostic with exit code 2 or 3.
RunResult runFusionAsRank(const Fusion& f, RunOptions opts, const exec::multirank::RankEnv& env,
                          double timeout_s);

// {"run": {...}} — what `run --format json` prints and the HTML report reads.
// Non-finite numbers are written as the strings "inf", "-inf", "nan".
std::string renderRunJson(const RunResult& r);
// The human summary (segments, then one block per output); diagnostics are
// rendered by the caller with diag/render.h.
void renderRunText(const RunResult& r, std::ostream& os);

}  // namespace fc
