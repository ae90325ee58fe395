// runFusion: inputs -> reference -> pipeline (+fixes) -> segmented run ->
// compare (see run.h).
#include "driver/run.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>

#include "driver/executable.h"
#include "exec/exec_error.h"
#include "exec/multirank/rank_session.h"
#include "exec/reference.h"
#include "exec/tensor_source.h"
#include "io/pointer_target.h"
#include "ir/live_exprs.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "support/internal_error.h"
#include "support/progress.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_reference.h"
#include "exec/cuda/cuda_status.h"
#include "exec/cuda/device_source.h"
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
    case DiagCode::CudaError:
    case DiagCode::OpNotExecuted: return 3;
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

// The failing segment: the first segment an error is reported for -- an
// unbound extent's segment, the segment a located tensor enters (an edge
// hazard names the segment input) or the one an expr belongs to; 0 when
// the era fails on the whole fusion or gives no segment.
uint32_t failingSegment(const Fusion& f, const PipelineResult& pr) {
  int best = -1;
  auto consider = [&](int s) {
    if (s >= 0 && (best < 0 || s < best)) best = s;
  };
  for (const UnboundExtent& u : pr.unbound) consider(u.segment);
  for (const Diagnostic& d : pr.diagnostics) {
    if (d.severity != Severity::Error || d.code == DiagCode::UnboundExtent) continue;
    PointerTarget t = resolveLocation(f, d.loc);
    int at = -1;
    for (const SegmentEdge& e : pr.segmented.edges)
      if (t.tensor != kNone && e.tensor == t.tensor && (at < 0 || static_cast<int>(e.to) < at))
        at = static_cast<int>(e.to);
    for (const Segment& s : pr.segmented.segments)
      for (ExprId x : s.exprs)
        if (at < 0 && t.expr != kNone && x == t.expr) at = static_cast<int>(s.id);
    consider(at);
  }
  return best < 0 ? 0 : static_cast<uint32_t>(best);
}

// A copy that charges no budget: values kept in the result outlive the run's
// MemoryBudget.
HostTensor unbudgeted(const HostTensor& t) {
  HostTensor c(t.dtype(), t.shape(), nullptr);
  std::copy(t.data(), t.data() + t.numel(), c.data());
  return c;
}

// The inputs kept in the result: global tensors and scalars (no per-rank copies).
RunInputs keptInputs(const RunInputs& in) {
  RunInputs k;
  for (const InputValue& v : in.values) {
    InputValue c;
    c.is_tensor = v.is_tensor;
    c.scalar = v.scalar;
    c.dtype = v.dtype;
    if (v.is_tensor) c.global = assembleGlobal(v, nullptr);
    k.values.push_back(std::move(c));
  }
  return k;
}

// `f` with a concrete_inputs entry for every input it does not describe,
// from the run's inputs (local shapes of the first rank holding a tensor).
std::optional<Fusion> withInputSizes(const Fusion& f, const World& world, const RunInputs& in) {
  std::vector<bool> described(f.inputs.size(), false);
  for (const ConcreteInput& ci : f.concrete_inputs)
    for (size_t p = 0; p < f.inputs.size(); ++p)
      if (f.inputs[p] == ci.value) described[p] = true;
  std::optional<Fusion> out;
  for (size_t p = 0; p < f.inputs.size() && p < in.values.size(); ++p) {
    if (described[p]) continue;
    const InputValue& iv = in.values[p];
    ConcreteInput ci;
    ci.value = f.inputs[p];
    if (iv.is_tensor) {
      std::vector<int64_t> ranks = world.ranksOf(f.inputs[p].id);
      const HostTensor* local = nullptr;
      for (int64_t r : ranks)
        if (!local && r >= 0 && r < static_cast<int64_t>(iv.local.size()) && iv.local[r])
          local = &*iv.local[r];
      if (!local) continue;
      ci.shape = local->shape();
    } else {
      ConstValue cv;
      cv.kind = iv.scalar.is_float ? ConstValue::Kind::Float : ConstValue::Kind::Int;
      cv.i = iv.scalar.i;
      cv.f = iv.scalar.f;
      if (iv.dtype == DType::Bool) cv.kind = ConstValue::Kind::Bool;
      ci.scalar = cv;
    }
    if (!out) out.emplace(f);
    out->concrete_inputs.push_back(std::move(ci));
  }
  return out;
}

void addError(RunResult& r, DiagCode code, std::string msg, std::string file, const Place& where = {}) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = code;
  d.message = std::move(msg);
  d.loc = Location::at(std::move(file), where);
  r.diagnostics.push_back(std::move(d));
  r.exit_code = std::max(r.exit_code, exitCodeFor(code));
}

// One output of the segmented program as the comparison reads it.
struct OutputValue {
  std::unique_ptr<HostTensor> host;      // assembled on the host (with keep_values, always);
                                         // a stable address for `source` to read
  std::unique_ptr<TensorSource> source;  // null when a rank of its mesh did not produce it
  std::optional<int64_t> replica_bad;    // flat index where replicas first disagree
};

// Output `t` assembled on the host from the ranks' tensors of `run`.
OutputValue hostOutput(const SegmentedRun& run, const Fusion& f, const World& world, TensorId t,
                       MemoryBudget* budget) {
  OutputValue out;
  std::vector<const HostTensor*> shards;
  for (int64_t r : world.ranksOf(t)) {
    if (r < 0 || !run.local[t][r]) return out;
    shards.push_back(&*run.local[t][r]);
  }
  out.host =
      std::make_unique<HostTensor>(assemble(shards, shardDims(f, t), meshOf(f, t), budget, &out.replica_bad));
  out.source = std::make_unique<HostTensorSource>(*out.host);
  return out;
}

#if FC_HAVE_CUDA
// Output `t` of a program run on the GPU. A replicated one is read from
// its first rank's device buffer, the others checked against it a chunk at
// a time (replicas that share one buffer are not read at all); a sharded
// one is downloaded and assembled on the host.
OutputValue deviceOutput(const cuda::CudaProgram& prog, const Fusion& f, const World& world, TensorId t,
                         bool keep_host, MemoryBudget* budget) {
  OutputValue out;
  std::vector<const cuda::DeviceTensor*> shards;
  for (int64_t r : world.ranksOf(t)) {
    const cuda::DeviceTensor* d = r < 0 ? nullptr : prog.tensor(t, r);
    if (!d) return out;
    shards.push_back(d);
  }
  std::vector<ShardDim> dims = shardDims(f, t);
  if (!dims.empty()) {
    std::vector<HostTensor> local;
    local.reserve(shards.size());
    for (const cuda::DeviceTensor* d : shards) local.push_back(d->download(budget));
    std::vector<const HostTensor*> ptrs;
    for (const HostTensor& h : local) ptrs.push_back(&h);
    out.host = std::make_unique<HostTensor>(assemble(ptrs, dims, meshOf(f, t), budget, &out.replica_bad));
    out.source = std::make_unique<HostTensorSource>(*out.host);
    return out;
  }
  out.source = std::make_unique<cuda::DeviceTensorSource>(*shards[0]);
  for (size_t k = 1; k < shards.size() && !out.replica_bad; ++k)
    out.replica_bad = firstBitDifference(*out.source, cuda::DeviceTensorSource(*shards[k]));
  if (keep_host) out.host = std::make_unique<HostTensor>(shards[0]->download(budget));
  return out;
}
#endif

void runImpl(const Fusion& f, const RunOptions& opts, RunResult& res, MemoryBudget& budget) {
  // The reference computes what nvFuser would: the exprs some output depends on (ir/live_exprs.h).
  const Fusion& ref_in = opts.against ? *opts.against : f;
  std::shared_ptr<Fusion> ref_live;
  if (hasDeadExprs(ref_in)) ref_live = withoutExprs(ref_in, liveExprs(ref_in).dead);
  const Fusion& ref_f = ref_live ? *ref_live : ref_in;
  const std::string& ref_file = opts.against ? opts.against_file : opts.file;
  res.profile = opts.profile ? *opts.profile : defaultProfile(f);
  res.seed = opts.seed.value_or(ref_f.seed.value_or(0));

  if (opts.device == RunDevice::Cuda) {
#if FC_HAVE_CUDA
    std::string why;
    if (!cuda::deviceAvailable(&why)) {
      addError(res, DiagCode::NoDevice, "no CUDA device is available (" + why + "); run with --device cpu",
               opts.file);
      return;
    }
#else
    addError(res, DiagCode::NoDevice,
             "the CUDA backend is not built into this fusecheck; run with --device cpu", opts.file);
    return;
#endif
  }

  World world(f), ref_world(ref_f);
  if (world.devices() != ref_world.devices()) {
    addError(res, DiagCode::AgainstMismatch, "the two fusions' meshes cover different devices", opts.file,
             Place::member(PlaceField::Meshes));
    return;
  }
  res.ranks = world.size();
  res.communicator = opts.device == RunDevice::Cuda ? "simulated-ring-on-gpu" : "simulated-ring";
  if (opts.execute && !opts.communicator.empty()) res.communicator = opts.communicator;

  // Inputs and the reference.
  const RunDevice ref_device =
      opts.reference_device.value_or(opts.reference == ReferenceKind::Exact ? opts.device : RunDevice::Cpu);
  ScalarValues ref_sv(ref_f);
  RunInputs in;
  ReferenceResult ref;
#if FC_HAVE_CUDA
  // On the GPU the reference's outputs and the program's stay on the
  // device; the comparison reads them a chunk at a time.
  std::unique_ptr<cuda::DeviceReference> gpu_ref;
  std::unique_ptr<cuda::CudaProgram> gpu_run;
  // A GPU run whose reference is on the GPU too (or has none) keeps its
  // generated inputs on the device only, unless the caller keeps them.
  std::unique_ptr<cuda::DeviceInputs> dev_in;
  if (opts.device == RunDevice::Cuda && !opts.inputs && !opts.keep_values && !opts.execute &&
      (!opts.compare || ref_device == RunDevice::Cuda))
    dev_in = std::make_unique<cuda::DeviceInputs>(&budget);
#endif
  try {
    // --bind values size the generated inputs (and are checked against given ones).
    for (const auto& [name, v] : opts.binds)
      if (auto s = ref_f.findScalar(name))
        if (ref_f.scalars[*s].kind == ScalarKind::Symbol || ref_f.scalars[*s].kind == ScalarKind::Input)
          ref_sv.bind(*s, ScalarValue::ofInt(v));
    res.inputs_from_file = opts.inputs != nullptr;
    if (opts.inputs) {
      res.inputs_source = opts.inputs->source;
      for (const std::string& r : opts.inputs->rank_sources)
        res.inputs_source += (res.inputs_source.empty() ? "" : ", ") + r;
    }
    reportStep(0, 0, opts.inputs ? "reading the inputs" : "generating the inputs");
    // Generated inputs are held as the ranks' shards only, and the reference
    // assembles the global tensors where it runs; a GPU run (dev_in) keeps
    // the shards on the device, so the host holds one shard at a time.
    HeldInputs held = HeldInputs::ShardsOnly;
    std::optional<ShardSink> sink;
#if FC_HAVE_CUDA
    if (dev_in) {
      held = HeldInputs::None;
      sink = dev_in->sink();
    }
#endif
    in = opts.inputs ? inputsFromTensors(ref_f, ref_world, ref_sv, *opts.inputs, res.seed,
                                         opts.default_extent, &budget)
                     : generateInputs(ref_f, ref_world, ref_sv, res.seed, opts.default_extent, &budget, held,
                                      sink ? &*sink : nullptr);
    if (opts.keep_values) res.inputs = keptInputs(in);
  } catch (ExecError& e) {
    addError(res, e.code, e.message, ref_file, e.where);
    return;
  }
  try {
    Flavour flavour = opts.reference == ReferenceKind::Exact ? Flavour::Exact : Flavour::Faithful;
    res.reference_device = ref_device;
    if (res.reference_device == RunDevice::Cuda && flavour != Flavour::Exact)
      fail("the faithful reference is computed on the host only; drop --reference-device cuda", {},
           DiagCode::Usage);
    bool on_gpu = opts.compare && res.reference_device == RunDevice::Cuda;
    if (opts.compare)
      reportStep(0, 0,
                 "the " + std::string(referenceKindName(opts.reference)) + " reference on " +
                     std::string(runDeviceName(res.reference_device)));
    // The reference's own executor steps are not the run's segments.
    StepListener quiet([](uint64_t, uint64_t, std::string_view) {});
#if FC_HAVE_CUDA
    if (on_gpu) {
      gpu_ref = std::make_unique<cuda::DeviceReference>(ref_f, in, &budget, dev_in.get());
      ref = gpu_ref->paths();
    }
#else
    if (on_gpu) fail("the CUDA backend is not built into this fusecheck", {}, DiagCode::NoDevice);
#endif
    if (opts.compare && !on_gpu) ref = runReference(ref_f, in, ref_sv, flavour, &budget);
  } catch (ExecError& e) {
    addError(res, e.code, "reference: " + e.message, ref_file, userPlace(ref_f, e.where));
    return;
  }

  // The profile's pipeline, then the fixes it proposes.
  PipelineOptions po;
  po.profile = res.profile;
  po.binds = opts.binds;
  po.file = opts.file;
  // The user's tensors size the analysis too: an input the repro does not
  // describe gets a concrete_inputs entry with its local shape (or value).
  std::optional<Fusion> sized;
  if (opts.inputs && !opts.against) sized = withInputSizes(f, world, in);
  const Fusion& pf = sized ? *sized : f;
  reportStep(0, 0, "segmentation and concretization");
  PipelineResult pr = runPipeline(pf, po);
  const Fusion* exec_f = &pf;
  std::optional<Fusion> fixed;
  res.fix = opts.fix;
  if (opts.fix && pr.failed()) {
    // The fixes edit the fusion the pipeline ran (its segments name that fusion's exprs).
    FixResult fr = applyFixesToFixpoint(pr.fusion(pf), pr, po, FixKind::Auto, opts.file);
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
    stop_at = pr.stopped_in_sharding ? 0u : failingSegment(*exec_f, pr);
    for (const Diagnostic& d : pr.diagnostics) res.diagnostics.push_back(d);
    res.exit_code = std::max(res.exit_code, 1);
  } else if (pr.verdict() == Verdict::NotDecided) {
    // What nvFuser does is open; the program still runs on fusecheck's executor.
    for (const Diagnostic& d : pr.diagnostics) res.diagnostics.push_back(d);
    res.exit_code = std::max(res.exit_code, 5);
  }

  // What runs is the fusion the pipeline segmented: after the sharding
  // passes (a tensor without a mesh takes its producers' mesh and DID axes)
  // when they changed something.
  exec_f = &pr.fusion(*exec_f);
  World run_world(*exec_f);

  // The segmented program.
  ScalarValues sv(*exec_f);
  SegmentedRun run;
  try {
    bindInputs(*exec_f, run_world, in, sv);
    if (opts.execute) {
      run = opts.execute(pr.segmented, run_world, in, sv, &budget, stop_at, &res.segments);
    } else {
#if FC_HAVE_CUDA
      if (opts.device == RunDevice::Cuda) {
        gpu_run = std::make_unique<cuda::CudaProgram>(pr.segmented, run_world, sv, &budget);
        gpu_run->uploadInputs(in, dev_in.get());
        dev_in.reset();  // the program holds the buffers it needs
        gpu_run->run(stop_at, &res.segments);
      } else
#endif
        run = runSegmented(pr.segmented, run_world, in, sv, &budget, stop_at, {}, &res.segments);
    }
  } catch (ExecError& e) {
    std::string where;
    for (const SegmentRun& s : res.segments)
      if (s.status == "failed") where = "segment " + std::to_string(s.id) + " (" + s.summary + "): ";
    addError(res, e.code, where + e.message, opts.file, userPlace(*exec_f, e.where));
    return;
  }
  if (stop_at) return;  // fails where the profile fails, with the pipeline's diagnostics
  if (!opts.compare) return;

  // Compare by position.
  reportStep(0, 0, "comparing the outputs with the reference");
  if (exec_f->outputs.size() != ref_f.outputs.size()) {
    addError(res, DiagCode::AgainstMismatch,
             "the fusion has " + std::to_string(exec_f->outputs.size()) + " outputs, the reference fusion " +
                 std::to_string(ref_f.outputs.size()),
             opts.file, Place::member(PlaceField::Outputs));
    return;
  }
  for (size_t k = 0; k < exec_f->outputs.size(); ++k) {
    TensorId t = exec_f->outputs[k], tr = ref_f.outputs[k];
    // The user's name: the sharding passes may have put a `set` before the output.
    std::string name(k < f.outputs.size() ? f.tensorName(f.outputs[k]) : exec_f->tensorName(t));
    OutputValue out;
#if FC_HAVE_CUDA
    if (gpu_run)
      out = deviceOutput(*gpu_run, *exec_f, run_world, t, opts.keep_values, &budget);
    else
#endif
      out = hostOutput(run, *exec_f, run_world, t, &budget);
    if (!out.source) {
      addError(res, DiagCode::ExecutionFailed,
               "output " + name + " was not produced on every device of its mesh", opts.file,
               Place::output(k));
      return;
    }
    const TensorSource& actual = *out.source;
    std::unique_ptr<TensorSource> expected;
#if FC_HAVE_CUDA
    if (gpu_ref) {
      const cuda::DeviceTensor* d = gpu_ref->value(tr);
      FC_CHECK(d != nullptr, "reference output missing");
      expected = std::make_unique<cuda::DeviceTensorSource>(*d);
    }
#endif
    if (!expected) {
      FC_CHECK(ref.values[tr].has_value(), "reference output missing");
      expected = std::make_unique<HostTensorSource>(*ref.values[tr]);
    }
    TolerancePolicy pol;
    pol.out_dtype = ref_f.tensors[tr].dtype;
    pol.path_dtype = ref.path_dtype[tr];
    pol.reduction_size = ref.path_reduction[tr];
    pol.collective_hops = ref.path_hops[tr];
    const Tolerance& tol = f.tolerance.rtol || f.tolerance.atol ? f.tolerance : ref_f.tolerance;
    pol.rtol = opts.rtol ? opts.rtol : (opts.atol ? std::optional<double>(0.0) : tol.rtol);
    pol.atol = opts.atol ? opts.atol : (opts.rtol ? std::optional<double>(0.0) : tol.atol);
    Comparison c = compareTensors(name, actual, *expected, pol);
    if (out.replica_bad)
      c.replica_note =
          "replicas of " + name + " disagree at " + indexString(unflatten(actual.shape(), *out.replica_bad));
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
      addError(res, DiagCode::NumericsMismatch, msg, opts.file, Place::output(k));
      Diagnostic& d = res.diagnostics.back();
      for (const WorstElement& w : c.worst)
        d.note("at " + indexString(w.index) + ": got " + fmt(w.actual) + ", reference " + fmt(w.expected) +
               " (error " + fmt(w.abs_error) + ", allowed " + fmt(w.allowed) + ", " + std::to_string(w.ulp) +
               " ulp)");
    }
    res.outputs.push_back(std::move(c));
    if (opts.keep_values) res.output_values.emplace_back(name, unbudgeted(*out.host));
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
  // A fusion fusecheck's executors cannot run is refused before any input is made (FC0909).
  DiagnosticSink refused;
  if (!allOpsExecuted(f, opts.file, refused) ||
      (opts.against && !allOpsExecuted(*opts.against, opts.against_file, refused))) {
    res.diagnostics = std::move(refused.all());
    res.exit_code = exitCodeFor(DiagCode::OpNotExecuted);
    return res;
  }
  try {
    runImpl(f, opts, res, budget);
  } catch (const BudgetExceeded& b) {
    std::string msg = b.requested == UINT64_MAX
                          ? std::string("a tensor's size overflows")
                          : "an allocation of " + std::to_string(b.requested) +
                                " bytes would exceed --max-bytes " + std::to_string(b.limit) + " (" +
                                std::to_string(b.in_use) + " bytes in use); refused before allocating";
    addError(res, DiagCode::OutOfMemory, msg, opts.file);
  } catch (const ExecError& e) {
    addError(res, e.code, e.message, opts.file, e.where);
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
