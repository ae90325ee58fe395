#include "pipeline/profile.h"

#include <array>

#include "passes/segment.h"
#include "pipeline/default_executor.h"
#include "pipeline/keyword_spellings.h"

namespace fc {
namespace {

constexpr std::array<std::string_view, 3> kFrontendNames = {"python", "direct", "cpp"};
constexpr std::array<std::string_view, 3> kFrontendTitles = {"Python (nvfuser)", "Python (nvfuser_direct)",
                                                             "C++"};
constexpr std::array<std::string_view, 4> kExecutorNames = {"fec", "mde", "mde-fec", "hostir"};
constexpr std::array<std::string_view, 4> kExecutorTitles = {
    "FusionExecutorCache", "MultiDeviceExecutor", "MultiDeviceExecutor with FusionExecutorCache per segment",
    "HostIrExecutor"};

std::string changeText(const nv::Change* c) { return c ? c->label() : std::string("(no such change)"); }

template <class E>
std::string firstTo(E v) {
  return changeText(nv::firstChangeTo(v));
}

}  // namespace

std::string_view frontendName(Frontend f) { return kFrontendNames[static_cast<size_t>(f)]; }
std::string_view frontendTitle(Frontend f) { return kFrontendTitles[static_cast<size_t>(f)]; }
std::string_view executorName(Executor e) { return kExecutorNames[static_cast<size_t>(e)]; }
std::string_view executorTitle(Executor e) { return kExecutorTitles[static_cast<size_t>(e)]; }

std::optional<Frontend> parseFrontend(std::string_view s) {
  for (size_t i = 0; i < kFrontendNames.size(); ++i)
    if (kFrontendNames[i] == s) return static_cast<Frontend>(i);
  return std::nullopt;
}
std::optional<Executor> parseExecutor(std::string_view s) {
  for (size_t i = 0; i < kExecutorNames.size(); ++i)
    if (kExecutorNames[i] == s) return static_cast<Executor>(i);
  return std::nullopt;
}

std::string_view orderText(ConcretizeOrder o) {
  switch (o) {
    case ConcretizeOrder::WholeFirst: return "bind + concretize the whole fusion, then segment";
    case ConcretizeOrder::PerSegment: return "segment, then bind + concretize each compute segment alone";
    case ConcretizeOrder::None: return "segment, then compile each compute segment without concretizing it";
  }
  return "";
}

std::string Profile::pathTitle() const {
  return std::string(frontendTitle(frontend)) + " " + std::string(executorTitle(executor));
}

std::string Profile::label() const { return "nvFuser " + point.label() + ", " + pathTitle(); }

std::optional<std::string> pathMissing(Frontend fe, Executor e, const nv::State& s, bool multi) {
  using namespace nv;
  switch (fe) {
    case Frontend::Python: {
      if (s.get<PythonLegacy>() == PythonLegacy::Removed)
        return "the legacy nvfuser Python module was removed by " + firstTo(PythonLegacy::Removed);
      const PythonMultiDevice md = s.get<PythonMultiDevice>();
      if (e == Executor::Fec) {
        if (multi && md == PythonMultiDevice::None)
          return "the legacy Python frontend ran fusions with meshes from " + firstTo(PythonMultiDevice::Mde);
        if (multi && md != PythonMultiDevice::Fec)
          return "the legacy Python frontend ran a fusion with meshes through the MultiDeviceExecutor "
                 "until " +
                 firstTo(PythonMultiDevice::Fec);
        return std::nullopt;
      }
      if (e == Executor::Mde) {
        if (s.get<PythonMdeOptIn>() == PythonMdeOptIn::Yes) return std::nullopt;
        if (!multi)
          return "the legacy Python frontend used the MultiDeviceExecutor only for fusions with meshes until "
                 "FusionDefinition(use_multidevice_executor=True), " +
                 firstTo(PythonMdeOptIn::Yes);
        if (md == PythonMultiDevice::None)
          return "the legacy Python frontend ran fusions with meshes from " + firstTo(PythonMultiDevice::Mde);
        if (md == PythonMultiDevice::Fec)
          return "from " + firstTo(PythonMultiDevice::Fec) +
                 " the legacy Python frontend ran fusions with meshes through FusionExecutorCache, and the "
                 "MultiDeviceExecutor was offered again by " +
                 firstTo(PythonMdeOptIn::Yes);
        return std::nullopt;
      }
      return "the Python frontends never ran " + std::string(executorTitle(e));
    }
    case Frontend::Direct: {
      const PythonDirect d = s.get<PythonDirect>();
      if (d == PythonDirect::Absent || d == PythonDirect::NoExecute)
        return "nvfuser_direct runs fusions from " + firstTo(PythonDirect::FecSingleDevice);
      if (multi && d == PythonDirect::FecSingleDevice)
        return "nvfuser_direct runs fusions with meshes from " + firstTo(PythonDirect::FecMultiDevice);
      if (e == Executor::Fec) return std::nullopt;
      if (e == Executor::Mde) {
        if (d == PythonDirect::FecOrMde) return std::nullopt;
        return "nvfuser_direct offers the MultiDeviceExecutor from " + firstTo(PythonDirect::FecOrMde);
      }
      return "nvfuser_direct never ran " + std::string(executorTitle(e));
    }
    case Frontend::Cpp:
      switch (e) {
        case Executor::Fec: return std::nullopt;
        case Executor::Mde:
          if (s.get<CppMde>() == CppMde::Absent)
            return "the MultiDeviceExecutor exists from " + firstTo(CppMde::FeWithoutConcretization);
          return std::nullopt;
        case Executor::MdeFec:
          if (s.get<CppMdeFec>() == CppMdeFec::Absent)
            return "MultiDeviceExecutorParams::use_fusion_executor_cache exists from " +
                   firstTo(CppMdeFec::PerSegmentFec);
          return std::nullopt;
        case Executor::HostIr:
          if (s.get<CppHostIr>() == CppHostIr::Absent)
            return "the HostIrExecutor exists from " + firstTo(CppHostIr::FeWithoutConcretization);
          return std::nullopt;
      }
  }
  return std::nullopt;
}

namespace {

// The tensors whose Reduction axes propagation strips of their DID types at this point.
ReductionDidScope reductionDidScope(const nv::State& s) {
  switch (s.get<nv::ReductionDidReset>()) {
    case nv::ReductionDidReset::No:
    case nv::ReductionDidReset::Removed: return ReductionDidScope::None;
    case nv::ReductionDidReset::AllTvs: return ReductionDidScope::AllTensors;
    case nv::ReductionDidReset::PropagatedOnly: return ReductionDidScope::PropagatedOnly;
  }
  return ReductionDidScope::None;
}

// The MultiDeviceExecutor's own behaviour (default params, or the
// FusionExecutorCache per segment).
void deriveMde(Profile& p, bool fec_per_segment) {
  using namespace nv;
  const State& s = p.state;
  const CppMde mde = s.get<CppMde>();
  if (mde == CppMde::FeWithoutConcretization) {
    p.order = fec_per_segment ? ConcretizeOrder::PerSegment : ConcretizeOrder::None;
    p.lookup = SegmentLookup::BufferMap;
  } else {
    p.order = ConcretizeOrder::PerSegment;
    const SegmentInputLookup l = s.get<SegmentInputLookup>();
    p.lookup = l == SegmentInputLookup::Evaluator ? SegmentLookup::Evaluator : SegmentLookup::HieBufferMap;
  }
  p.scheduler = fec_per_segment;
  p.kernel_without_scheduler = !fec_per_segment;
  p.expr_eval_dispatch = s.get<MdeKernelDispatch>() == MdeKernelDispatch::ExprEvalOrKernel;
  const MdePasses passes = s.get<MdePasses>();
  p.sharding_passes = true;
  p.propagate = passes == MdePasses::PropagateAndReshard;
  p.reshard_after = s.get<ReshardPlacement>() == ReshardPlacement::AfterForSingleInput;
  p.mesh_rule = passes == MdePasses::DecomposeOnly ? MeshRule::None : s.get<MeshRule>();
  p.rejects_scalar_exprs = s.get<NonTvOps>() == NonTvOps::Rejected;
  p.unmapped_axis_error = s.get<UnmappedProducerAxis>() == UnmappedProducerAxis::Error;
  p.reduction_did_reset = p.propagate ? reductionDidScope(s) : ReductionDidScope::None;
  p.reduction_did_stays_local = s.get<ReductionDidReset>() != ReductionDidReset::Removed;
  p.propagation_reference = s.get<PropagationReference>();
  p.keep_target_types = s.get<PropagationTargets>() == PropagationTargets::KeepOwnTypes;
  p.mesh_segmenter = s.get<MdeSegmentation>() == MdeSegmentation::StandaloneHostOps
                         ? MeshSegmenter::StandaloneHostOps
                         : MeshSegmenter::ReshardingAlone;
}

// The positions of main a print's style dates it to: [printed_from, printed_before).
std::variant<PrintedRange, ProfileError> printedRange(const ReproOrigin& o) {
  PrintedRange r;
  r.last = static_cast<uint32_t>(nv::commits().size() - 1);
  r.why = o.detail.empty() ? "printed in a style nvFuser used only for a while" : o.detail;
  auto at = [](const std::string& commit, const char* key) -> std::variant<uint32_t, ProfileError> {
    auto p = nv::resolvePoint(commit);
    if (auto* e = std::get_if<nv::PointError>(&p))
      return ProfileError{
          "the repro's origin." + std::string(key) + ": " + e->message + " (--nvfuser overrides it)",
          e->suggestions};
    return std::get<nv::Point>(p).pos;
  };
  if (!o.printed_from.empty()) {
    auto p = at(o.printed_from, "printed_from");
    if (auto* e = std::get_if<ProfileError>(&p)) return *e;
    r.first = std::get<uint32_t>(p);
  }
  if (!o.printed_before.empty()) {
    auto p = at(o.printed_before, "printed_before");
    if (auto* e = std::get_if<ProfileError>(&p)) return *e;
    const uint32_t before = std::get<uint32_t>(p);
    if (before == 0 && r.first == 0) {
      r.before_history = true;
      r.last = 0;
      return r;
    }
    if (before <= r.first)
      return ProfileError{"the repro's origin.printed_before (" + o.printed_before +
                              ") is not after its printed_from: no point printed it (--nvfuser overrides it)",
                          {}};
    r.last = before - 1;
  }
  return r;
}

}  // namespace

Executor defaultExecutor(Frontend fe, const nv::State& s, bool multi) {
  using namespace nv;
  switch (fe) {
    case Frontend::Python:
      if (!multi) return Executor::Fec;
      return s.get<PythonMultiDevice>() == PythonMultiDevice::Fec ? Executor::Fec : Executor::Mde;
    case Frontend::Direct: return Executor::Fec;
    case Frontend::Cpp:
      if (multi && s.get<FecMultiDevice>() < FecMultiDevice::SegmentsAtResharding &&
          s.get<CppMde>() != CppMde::Absent)
        return Executor::Mde;
      return Executor::Fec;
  }
  return Executor::Fec;
}

std::variant<Profile, ProfileError> profileAt(const nv::Point& point, std::optional<Frontend> frontend,
                                              std::optional<Executor> executor, const Fusion& f) {
  using namespace nv;
  Profile p;
  p.point = point;
  p.state = stateAt(point.pos);
  const State& s = p.state;
  p.multi_device = isMultiDevice(f);
  const bool multi = p.multi_device;

  // The path: what was asked, what the repro says, else an assumption said out loud.
  const ReproOrigin* origin = f.origin ? &*f.origin : nullptr;
  if (!frontend && origin && !origin->frontend.empty()) frontend = parseFrontend(origin->frontend);
  if (!frontend && origin) {
    if (origin->kind == "python-legacy") frontend = Frontend::Python;
    if (origin->kind == "python-direct") frontend = Frontend::Direct;
    if (origin->kind == "cpp-test") frontend = Frontend::Cpp;
  }
  if (!frontend) {
    const bool python_can = s.get<PythonLegacy>() == PythonLegacy::Present &&
                            (!multi || s.get<PythonMultiDevice>() != PythonMultiDevice::None);
    frontend = python_can ? Frontend::Python : Frontend::Cpp;
    std::string how = origin && !origin->kind.empty()
                          ? "the repro (" + origin->kind + ") does not say how it was run"
                          : "the repro does not say how it was run";
    p.assumptions.push_back(how + ": assuming " + std::string(frontendTitle(*frontend)) +
                            (python_can ? "" : ", the only frontend that ran it at this point") +
                            "; --frontend and --executor replay another path");
  }
  if (!executor && origin && !origin->executor.empty() &&
      (!origin->frontend.empty() || !origin->kind.empty()))
    executor = parseExecutor(origin->executor);
  if (!executor && origin && origin->kind == "cpp-test" && origin->executor.empty() &&
      origin->detail.find("scheduled by the test") != std::string::npos) {
    // KernelExecutor / FusionExecutor / scheduleAndRun: one kernel the test schedules itself, with
    // neither segmentation nor concretization; fusecheck replays no such path.
    executor = defaultExecutor(*frontend, s, multi);
    const size_t semi = origin->detail.find("; ");
    std::string how = semi == std::string::npos ? origin->detail : origin->detail.substr(semi + 2);
    how = how.substr(0, how.find(" ("));
    p.assumptions.push_back("the test compiles one kernel that it schedules itself (" + how +
                            "), a path fusecheck does not replay: this is the verdict of " +
                            std::string(executorTitle(*executor)) + " on the same fusion");
  }
  if (!executor) {
    executor = defaultExecutor(*frontend, s, multi);
    if (!p.assumptions.empty() || !origin || origin->executor.empty())
      p.assumptions.push_back(std::string(frontendTitle(*frontend)) + " runs " +
                              (multi ? "a fusion with meshes" : "a fusion") + " through " +
                              std::string(executorTitle(*executor)) + " at this point");
  }
  p.frontend = *frontend;
  p.executor = *executor;
  if (auto why = pathMissing(p.frontend, p.executor, s, multi))
    return ProfileError{std::string(frontendTitle(p.frontend)) + " with " +
                            std::string(executorTitle(p.executor)) + " did not exist at nvFuser " +
                            point.label() + ": " + *why,
                        {}};

  // A script whose keywords the frontend does not bind at this point never defines its fusion.
  if (auto c = spellingConflict(f, p.frontend, point.pos)) {
    const nv::Commit& edge = nv::commits()[c->too_old ? c->change->pos - 1 : c->change->pos];
    const bool cpp = isCppSpelling(*c->use);
    return ProfileError{std::string(frontendTitle(p.frontend)) + " at nvFuser " + point.label() +
                            " does not run this " + (cpp ? "test: " : "script: ") + spellingConflictText(*c) +
                            (cpp ? ", so the test does not compile"
                                 : ", so the script stops with a TypeError before its fusion is defined") +
                            "; replay a point " + (c->too_old ? "before" : "from") + " it (--nvfuser " +
                            std::string(edge.hash.substr(0, 9)) + ", " + std::string(edge.date) + ")",
                        {}};
  }

  // What every path shares at this point.
  p.input_rewrite = s.get<nv::InputRewrite>() == nv::InputRewrite::StripReductions
                        ? fc::InputRewrite::StripReductions
                        : fc::InputRewrite::KeepReductions;
  switch (s.get<DidBinding>()) {
    case DidBinding::TensorSize: p.did_rule = DidBindingRule::TensorSize; break;
    case DidBinding::MeshSizeLocalOne: p.did_rule = DidBindingRule::MeshSizeLocalOne; break;
    case DidBinding::Unsharded: p.did_rule = DidBindingRule::Unsharded; break;
  }
  p.lowering.squeeze = s.get<SqueezeCommunication>() == SqueezeCommunication::Yes;
  p.lowering.all_to_all = s.get<ShardedAxisSwap>() == ShardedAxisSwap::AllToAll;
  p.lowering.swap_unknown = s.get<ShardedAxisSwap>() == ShardedAxisSwap::Unknown;
  p.lowering.multi_dim_mesh = s.get<DeviceMesh>() == DeviceMesh::MultiDim;
  switch (s.get<CommClassification>()) {
    case CommClassification::GlobalFlag:
      p.lowering.classification = LoweringRules::Classification::GlobalFlag;
      break;
    case CommClassification::PerDid: p.lowering.classification = LoweringRules::Classification::PerDid; break;
    case CommClassification::PerChangedDid:
      p.lowering.classification = LoweringRules::Classification::PerChangedDid;
      break;
  }
  p.print_style =
      s.get<nv::PrintStyle>() == nv::PrintStyle::DtypeInName ? fc::PrintStyle::Head : fc::PrintStyle::Y2024;
  p.mesh_nd_print = s.get<DeviceMesh>() != DeviceMesh::OneD;
  const OpBuildSharding ob = s.get<OpBuildSharding>();
  p.op_build.new_output_mesh = ob != OpBuildSharding::None;
  p.op_build.new_output_dids = ob == OpBuildSharding::MeshAndDids || ob == OpBuildSharding::BroadcastAxisDids;
  p.op_build.broadcast_axis_dids = ob == OpBuildSharding::BroadcastAxisDids;
  p.op_build.reduction = s.get<ReductionBuildSharding>() == ReductionBuildSharding::MeshAndKeptDids;
  const LayoutOpMesh lm = s.get<LayoutOpMesh>();
  p.op_build.permute_mesh = lm >= LayoutOpMesh::Permute;
  p.op_build.broadcast_squeeze_mesh = lm >= LayoutOpMesh::BroadcastSqueeze;
  p.op_build.static_reshape_mesh = lm >= LayoutOpMesh::StaticReshape;
  p.op_build.linear_mesh = lm >= LayoutOpMesh::Linear;
  p.op_build.broadcast_dids = s.get<BroadcastBuildDids>() == BroadcastBuildDids::Kept;

  switch (p.executor) {
    case Executor::Fec:
      p.order = ConcretizeOrder::WholeFirst;
      p.scheduler = true;
      p.lookup = SegmentLookup::Whole;
      if (multi) {
        const FecMultiDevice md = s.get<FecMultiDevice>();
        if (md < FecMultiDevice::SegmentsAtResharding) {
          p.not_decided.push_back(
              "FusionExecutorCache segments a fusion with meshes at its resharding exprs from " +
              firstTo(FecMultiDevice::SegmentsAtResharding) +
              "; what it did with one before is not modelled");
        }
        p.sharding_passes = md >= FecMultiDevice::ShardingPasses;
        p.propagate = p.sharding_passes;
        p.reshard_after = s.get<ReshardPlacement>() == ReshardPlacement::AfterForSingleInput;
        p.mesh_rule = p.sharding_passes ? s.get<MeshRule>() : MeshRule::None;
        p.rejects_scalar_exprs = p.sharding_passes && s.get<NonTvOps>() == NonTvOps::Rejected;
        p.unmapped_axis_error =
            p.sharding_passes && s.get<UnmappedProducerAxis>() == UnmappedProducerAxis::Error;
        p.reduction_did_reset = reductionDidScope(s);
        p.reduction_did_stays_local = s.get<ReductionDidReset>() != ReductionDidReset::Removed;
        p.propagation_reference = s.get<PropagationReference>();
        p.keep_target_types = s.get<PropagationTargets>() == PropagationTargets::KeepOwnTypes;
        p.mesh_segmenter = MeshSegmenter::SchedulerDriven;
      }
      break;
    case Executor::Mde:
      deriveMde(p, false);
      if (p.frontend == Frontend::Python &&
          s.get<PythonMultiDevice>() == PythonMultiDevice::MdeAfterPreDidConcretization &&
          s.get<PythonMdeOptIn>() == PythonMdeOptIn::No) {
        p.pre_schedule_binding = true;
        p.not_decided.push_back(
            "from " + firstTo(PythonMultiDevice::MdeAfterPreDidConcretization) +
            " the legacy Python frontend concretized the whole fusion with its local inputs before "
            "schedule() "
            "set the meshes (csrc/python_frontend/fusion_definition.cpp:221 @ 46b583aaa427), then ran the "
            "MultiDeviceExecutor; that double concretization is not modelled (reported broken from #2635, "
            "issue #2929, until " +
            firstTo(PythonMultiDevice::Fec) + ")");
      }
      break;
    case Executor::MdeFec: deriveMde(p, true); break;
    case Executor::HostIr:
      p.order = s.get<CppHostIr>() == CppHostIr::ConcretizePerUnit ? ConcretizeOrder::PerSegment
                                                                   : ConcretizeOrder::None;
      p.scheduler = false;
      p.kernel_without_scheduler = true;
      p.lookup = SegmentLookup::UserProgram;
      if (multi)
        p.not_decided.push_back(
            "a HostIrExecutor program's communications are built by hand in C++; fusecheck "
            "does not replay them");
      break;
  }
  // The sharding propagation's walk back from consumers (PropagateShardingsPass).
  p.backprop_meshes = p.propagate && s.get<FactoryMesh>() == FactoryMesh::Backpropagated;
  p.backprop_dids = p.backprop_meshes && p.propagation_reference == PropagationReference::WeightsFirst;
  p.backprop_loop_split = p.backprop_dids && s.get<BackpropLoopSplit>() == BackpropLoopSplit::Propagated;
  p.reduction_dids_counted = s.get<ReductionDidsCounted>() == ReductionDidsCounted::Counted;
  p.biased_linear_decomposed = s.get<BiasedRowParallelLinear>() == BiasedRowParallelLinear::Decomposed;
  // The transpose scheduler meets Reduction axes only on segment inputs the
  // rewrite keeps them on, and only where segments are scheduled.
  const bool keeps = p.input_rewrite == fc::InputRewrite::KeepReductions;
  p.transpose_tile_hazard =
      p.scheduler && keeps && s.get<TransposeTileReduction>() == TransposeTileReduction::Hazard;
  p.transpose_outer_hazard =
      p.scheduler && keeps && s.get<TransposeOuterReduction>() == TransposeOuterReduction::Hazard;
  return p;
}

std::variant<Profile, ProfileError> resolveProfile(const ProfileRequest& req, const Fusion& f) {
  std::optional<Frontend> fe;
  std::optional<Executor> ex;
  if (!req.frontend.empty()) {
    fe = parseFrontend(req.frontend);
    if (!fe) return ProfileError{"unknown frontend '" + req.frontend + "'", {"python", "direct", "cpp"}};
  }
  if (!req.executor.empty()) {
    ex = parseExecutor(req.executor);
    if (!ex)
      return ProfileError{"unknown executor '" + req.executor + "'", {"fec", "mde", "mde-fec", "hostir"}};
  }
  // The point: asked for, else the repro's, else head.
  std::string spec = req.point;
  std::string from;
  if (spec.empty() && f.nvfuser) {
    const RecordedPoint& rp = *f.nvfuser;
    spec = !rp.commit.empty() ? rp.commit : !rp.point.empty() ? rp.point : rp.version;
    from = "the repro's";
  }
  if (spec.empty() && f.era) {
    spec = std::string(eraName(*f.era));
    from = "the repro's era";
  }
  // A print dated by its style only: every point of that range (the last one's profile).
  std::optional<PrintedRange> printed;
  if (spec.empty() && f.origin && (!f.origin->printed_from.empty() || !f.origin->printed_before.empty())) {
    auto range = printedRange(*f.origin);
    if (auto* e = std::get_if<ProfileError>(&range)) return *e;
    printed = std::get<PrintedRange>(range);
    printed->frontend = fe;
    printed->executor = ex;
    spec = std::string(nv::commits()[printed->last].hash);
  }
  // A repro of the legacy Python frontend without a point: the last point
  // that frontend existed at (it was removed by #5917 on 2026-02-20).
  bool legacy = fe ? *fe == Frontend::Python : (f.origin && f.origin->frontend == "python");
  bool direct = fe ? *fe == Frontend::Direct : (f.origin && f.origin->frontend == "direct");
  std::string default_note;
  if (spec.empty() && legacy) {
    spec = "2026-02-19";
    default_note =
        "no nvFuser point given: assuming 2026-02-19, the last day of the legacy Python frontend "
        "(removed by #5917); --nvfuser replays another point";
  }
  // A keyword the script spells in a form its frontend renamed away: the last point that took it.
  if (spec.empty() || !default_note.empty())
    if (auto b = lastPointSpelled(f, legacy ? Frontend::Python : direct ? Frontend::Direct : Frontend::Cpp)) {
      const auto def = nv::resolvePoint(spec.empty() ? "head" : spec);
      const auto* at = std::get_if<nv::Point>(&def);
      if (at && b->last_pos < at->pos) {
        const nv::Commit& c = nv::commits()[b->last_pos];
        spec = std::string(c.hash);
        default_note = "no nvFuser point given: the " +
                       std::string(isCppSpelling(*b->use) ? "test spells " : "script spells ") +
                       keywordUseText(*b->use) +
                       (isCppSpelling(*b->use) ? ", which no longer compiles from "
                                               : ", which its frontend stopped binding with ") +
                       b->change->label() + ": assuming " + std::string(c.date) + " (" +
                       std::string(c.hash.substr(0, 9)) +
                       "), the last point before it; --nvfuser replays another point";
      }
    }
  if (spec.empty()) spec = "head";
  auto r = nv::resolvePoint(spec);
  if (auto* e = std::get_if<nv::PointError>(&r)) {
    std::string msg = e->message;
    if (!from.empty()) msg += " (" + from + " point; --nvfuser overrides it)";
    return ProfileError{msg, e->suggestions};
  }
  auto prof = profileAt(std::get<nv::Point>(r), fe, ex, f);
  if (auto* p = std::get_if<Profile>(&prof); p && !default_note.empty())
    p->assumptions.insert(p->assumptions.begin(), default_note);
  if (auto* p = std::get_if<Profile>(&prof)) p->printed_range = std::move(printed);
  return prof;
}

Profile defaultProfile(const Fusion& f) {
  auto r = resolveProfile(ProfileRequest{}, f);
  if (auto* p = std::get_if<Profile>(&r)) return std::move(*p);
  auto h = profileAt(nv::headPoint(), Frontend::Cpp, std::nullopt, f);
  return std::get<Profile>(std::move(h));
}

}  // namespace fc
