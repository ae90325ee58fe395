// runFusion: inputs -> reference -> pipeline (+fixes) -> segmented run ->
// compare (see run.h).
#include "driver/run.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "exec/exec_error.h"
#include "exec/multirank/rank_session.h"
#include "exec/reference.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "support/internal_error.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_reference.h"
#include "exec/cuda/cuda_status.h"
#endif

namespace fc {

using namespace exec;

std::string_view runDeviceName(RunDevice d) { return d == RunDevice::Cpu ? "cpu" : "cuda"; }
std::string_view referenceKindName(ReferenceKind k) {
  return k == ReferenceKind::Exact ? "exact" : "faithful";
}

namespace {

int exitCodeFor(DiagCode c) {
  switch (c) {
    case DiagCode::OutOfMemory:
    case DiagCode::RankFailed:
    case DiagCode::NoDevice:
    case DiagCode::CudaError: return 3;
    case DiagCode::NumericsMismatch:
    case DiagCode::ExecutionFailed:
    case DiagCode::EvaluationFailed:
    case DiagCode::UnboundExtent:
    case DiagCode::EdgeHazard:
    case DiagCode::ReshapeUnevaluable:
    case DiagCode::EmptyExtent:
    case DiagCode::ExpandMismatch:
    case DiagCode::DidMeshMismatch:
    case DiagCode::UnlowerableResharding:
    case DiagCode::FixNotApplicable: return 1;
    default: return 2;
  }
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string indexString(const std::vector<int64_t>& idx) { return shapeString(idx); }

// The failing segment: the first segment an unbound extent is reported
// for; 0 when the era fails on the whole fusion or gives no segment.
uint32_t failingSegment(const PipelineResult& pr) {
  int best = -1;
  for (const UnboundExtent& u : pr.unbound)
    if (u.segment >= 0 && (best < 0 || u.segment < best)) best = u.segment;
  return best < 0 ? 0 : static_cast<uint32_t>(best);
}

void addError(RunResult& r, DiagCode code, std::string msg, std::string file, std::string pointer) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = code;
  d.message = std::move(msg);
  d.loc.file = std::move(file);
  d.loc.pointer = std::move(pointer);
  r.diagnostics.push_back(std::move(d));
  r.exit_code = std::max(r.exit_code, exitCodeFor(code));
}

void runImpl(const Fusion& f, const RunOptions& opts, RunResult& res, MemoryBudget& budget) {
  const Fusion& ref_f = opts.against ? *opts.against : f;
  const std::string& ref_file = opts.against ? opts.against_file : opts.file;
  res.era = opts.era.value_or(f.era.value_or(Era::E2024_06));
  res.seed = opts.seed.value_or(ref_f.seed.value_or(0));

  if (opts.device == RunDevice::Cuda) {
#if FC_HAVE_CUDA
    std::string why;
    if (!cuda::deviceAvailable(&why)) {
      addError(res, DiagCode::NoDevice, "no CUDA device is available (" + why + "); run with --device cpu",
               opts.file, "");
      return;
    }
#else
    addError(res, DiagCode::NoDevice,
             "the CUDA backend is not built into this fusecheck; run with --device cpu", opts.file, "");
    return;
#endif
  }

  World world(f), ref_world(ref_f);
  if (world.devices() != ref_world.devices()) {
    addError(res, DiagCode::AgainstMismatch, "the two fusions' meshes cover different devices", opts.file,
             "/meshes");
    return;
  }
  res.ranks = world.size();
  res.communicator = opts.device == RunDevice::Cuda ? "simulated-ring-on-gpu" : "simulated-ring";
  if (opts.execute && !opts.communicator.empty()) res.communicator = opts.communicator;

  // Inputs and the reference.
  ScalarValues ref_sv(ref_f);
  RunInputs in;
  ReferenceResult ref;
  try {
    in = generateInputs(ref_f, ref_world, ref_sv, res.seed, opts.default_extent, &budget);
    Flavour flavour = opts.reference == ReferenceKind::Exact ? Flavour::Exact : Flavour::Faithful;
    res.reference_device =
        opts.reference_device.value_or(opts.reference == ReferenceKind::Exact ? opts.device : RunDevice::Cpu);
    if (res.reference_device == RunDevice::Cuda && flavour != Flavour::Exact)
      fail("the faithful reference is computed on the host only; drop --reference-device cuda", "",
           DiagCode::Usage);
    bool on_gpu = opts.compare && res.reference_device == RunDevice::Cuda;
#if FC_HAVE_CUDA
    if (on_gpu) ref = cuda::runExactReferenceCuda(ref_f, in, &budget);
#else
    if (on_gpu) fail("the CUDA backend is not built into this fusecheck", "", DiagCode::NoDevice);
#endif
    if (opts.compare && !on_gpu) ref = runReference(ref_f, in, ref_sv, flavour, &budget);
  } catch (ExecError& e) {
    addError(res, e.code, "reference: " + e.message, ref_file, e.pointer);
    return;
  }

  // The era's pipeline, then the fixes it proposes.
  PipelineOptions po;
  po.era = res.era;
  po.binds = opts.binds;
  po.file = opts.file;
  PipelineResult pr = runPipeline(f, po);
  const Fusion* exec_f = &f;
  std::optional<Fusion> fixed;
  res.fix = opts.fix;
  if (opts.fix && pr.failed()) {
    FixResult fr = applyFixesToFixpoint(f, pr, po, FixKind::Auto, opts.file);
    for (const FixAction& a : fr.actions) res.fix_actions.push_back(a.fix + ": " + a.change);
    for (const Diagnostic& d : fr.refusals) {
      res.diagnostics.push_back(d);
      if (d.severity == Severity::Error) res.exit_code = std::max(res.exit_code, 1);
    }
    if (fr.changed) {
      fixed.emplace(std::move(fr.fixed));
      exec_f = &*fixed;
      pr = runPipeline(*exec_f, po);
    }
  }
  std::optional<uint32_t> stop_at;
  if (pr.failed()) {
    stop_at = failingSegment(pr);
    for (const Diagnostic& d : pr.diagnostics) res.diagnostics.push_back(d);
    res.exit_code = std::max(res.exit_code, 1);
  }

  // The segmented program.
  ScalarValues sv(*exec_f);
  SegmentedRun run;
  try {
    bindInputs(*exec_f, world, in, sv);
    if (opts.execute) {
      run = opts.execute(pr.segmented, world, in, sv, &budget, stop_at, &res.segments);
    } else {
#if FC_HAVE_CUDA
      if (opts.device == RunDevice::Cuda)
        run = cuda::runSegmentedCuda(pr.segmented, world, in, sv, &budget, stop_at, &res.segments);
      else
#endif
        run = runSegmented(pr.segmented, world, in, sv, &budget, stop_at, {}, &res.segments);
    }
  } catch (ExecError& e) {
    std::string where;
    for (const SegmentRun& s : res.segments)
      if (s.status == "failed") where = "segment " + std::to_string(s.id) + " (" + s.summary + "): ";
    addError(res, e.code, where + e.message, opts.file, e.pointer);
    return;
  }
  if (stop_at) return;  // fails where the era fails, with the pipeline's diagnostics
  if (!opts.compare) return;

  // Compare by position.
  if (exec_f->outputs.size() != ref_f.outputs.size()) {
    addError(res, DiagCode::AgainstMismatch,
             "the fusion has " + std::to_string(exec_f->outputs.size()) + " outputs, the reference fusion " +
                 std::to_string(ref_f.outputs.size()),
             opts.file, "/outputs");
    return;
  }
  for (size_t k = 0; k < exec_f->outputs.size(); ++k) {
    TensorId t = exec_f->outputs[k], tr = ref_f.outputs[k];
    std::string name(exec_f->tensorName(t));
    std::vector<const HostTensor*> shards;
    for (int64_t r : world.ranksOf(t)) {
      if (r < 0 || !run.local[t][r]) {
        addError(res, DiagCode::ExecutionFailed,
                 "output " + name + " was not produced on every device of its mesh", opts.file,
                 "/outputs/" + std::to_string(k));
        return;
      }
      shards.push_back(&*run.local[t][r]);
    }
    MeshId m = exec_f->tensors[t].mesh;
    const Mesh* mesh = (m != kNone && m < exec_f->meshes.size()) ? &exec_f->meshes[m] : nullptr;
    std::optional<int64_t> replica_bad;
    HostTensor actual = assemble(shards, shardDims(*exec_f, t), mesh, &budget, &replica_bad);
    FC_CHECK(ref.values[tr].has_value(), "reference output missing");
    TolerancePolicy pol;
    pol.out_dtype = ref_f.tensors[tr].dtype;
    pol.path_dtype = ref.path_dtype[tr];
    pol.reduction_size = ref.path_reduction[tr];
    pol.collective_hops = ref.path_hops[tr];
    const Tolerance& tol = f.tolerance.rtol || f.tolerance.atol ? f.tolerance : ref_f.tolerance;
    pol.rtol = opts.rtol ? opts.rtol : (opts.atol ? std::optional<double>(0.0) : tol.rtol);
    pol.atol = opts.atol ? opts.atol : (opts.rtol ? std::optional<double>(0.0) : tol.atol);
    Comparison c = compareTensors(name, actual, *ref.values[tr], pol);
    if (replica_bad)
      c.replica_note = "replicas of " + name + " disagree at " + indexString(actual.index(*replica_bad));
    if (!c.passed()) {
      std::string msg = "output " + name + " differs from the " +
                        std::string(referenceKindName(opts.reference)) + " reference";
      if (!c.shape_match) {
        msg += ": shape " + shapeString(c.shape) + " vs reference " + shapeString(c.ref_shape);
      } else if (c.mismatches > 0) {
        msg += ": " + std::to_string(c.mismatches) + " of " + std::to_string(c.numel) +
               " elements beyond tolerance (max abs error " + fmt(c.max_abs) + ", allowed atol " +
               fmt(c.atol) + " + rtol " + fmt(c.rtol) + " x |ref|)";
      } else {
        msg += ": " + c.replica_note;
      }
      addError(res, DiagCode::NumericsMismatch, msg, opts.file, "/outputs/" + std::to_string(k));
      Diagnostic& d = res.diagnostics.back();
      for (const WorstElement& w : c.worst)
        d.note("at " + indexString(w.index) + ": got " + fmt(w.actual) + ", reference " + fmt(w.expected) +
               " (error " + fmt(w.abs_error) + ", allowed " + fmt(w.allowed) + ", " + std::to_string(w.ulp) +
               " ulp)");
    }
    res.outputs.push_back(std::move(c));
  }
}

}  // namespace

RunResult runFusion(const Fusion& f, const RunOptions& opts) {
  RunResult res;
  res.file = opts.file;
  res.against_file = opts.against_file;
  res.device = opts.device;
  res.reference = opts.reference;
  MemoryBudget budget(opts.max_bytes);
  try {
    runImpl(f, opts, res, budget);
  } catch (const BudgetExceeded& b) {
    std::string msg = b.requested == UINT64_MAX
                          ? std::string("a tensor's size overflows")
                          : "an allocation of " + std::to_string(b.requested) +
                                " bytes would exceed --max-bytes " + std::to_string(b.limit) + " (" +
                                std::to_string(b.in_use) + " bytes in use); refused before allocating";
    addError(res, DiagCode::OutOfMemory, msg, opts.file, "");
  } catch (const ExecError& e) {
    addError(res, e.code, e.message, opts.file, e.pointer);
  }
  res.peak_bytes = budget.peak();
  bool errors = std::any_of(res.diagnostics.begin(), res.diagnostics.end(),
                            [](const Diagnostic& d) { return d.severity == Severity::Error; });
  if (errors && res.exit_code == 0) res.exit_code = 1;
  res.passed = res.exit_code == 0;
  return res;
}

RunResult runFusionAsRank(const Fusion& f, RunOptions opts, const exec::multirank::RankEnv& env,
                          double timeout_s) {
  multirank::RankFailure failure;
  std::unique_ptr<multirank::RankSession> session =
      multirank::RankSession::open(f, opts.device == RunDevice::Cuda, env, timeout_s, &failure);
  if (!session) {
    RunResult r;
    r.file = opts.file;
    r.device = opts.device;
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = failure.code;
    d.message = std::move(failure.message);
    d.loc.file = opts.file;
    r.diagnostics.push_back(std::move(d));
    r.exit_code = failure.exit_code;
    return r;
  }
  opts.execute = [&](const SegmentedFusion& sf, const World& w, const RunInputs& in, ScalarValues& sv,
                     MemoryBudget* budget, std::optional<uint32_t> stop_at,
                     std::vector<SegmentRun>* progress) -> SegmentedRun {
    return session->run(sf, w, in, sv, budget, stop_at, progress);
  };
  opts.compare = session->isRoot();
  opts.communicator = session->communicatorName();
  return runFusion(f, opts);
}

}  // namespace fc
