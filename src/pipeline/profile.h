// A profile: what fusecheck replays. A point of nvFuser's history (the
// switches in force there, history.h) and a path through it: the frontend
// that built the fusion and the executor that ran it. Everything the
// pipeline decides by is derived here, once, from the table; no other code
// looks at dates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analysis/binding.h"
#include "analysis/resharding.h"
#include "ir/fusion.h"
#include "ir/printer.h"
#include "ir/segmentation.h"
#include "passes/op_build_sharding.h"
#include "passes/segment.h"
#include "passes/sharding.h"
#include "pipeline/history.h"
#include "pipeline/point.h"

namespace fc {

enum class Frontend : uint8_t { Python, Direct, Cpp };
enum class Executor : uint8_t { Fec, Mde, MdeFec, HostIr };
inline constexpr Frontend kFrontends[] = {Frontend::Python, Frontend::Direct, Frontend::Cpp};
inline constexpr Executor kExecutors[] = {Executor::Fec, Executor::Mde, Executor::MdeFec, Executor::HostIr};
std::string_view frontendName(Frontend f);   // "python", "direct", "cpp"
std::string_view frontendTitle(Frontend f);  // "Python (nvfuser)", "Python (nvfuser_direct)", "C++"
std::string_view executorName(Executor e);   // "fec", "mde", "mde-fec", "hostir"
std::string_view executorTitle(Executor e);  // "FusionExecutorCache", ...
std::optional<Frontend> parseFrontend(std::string_view s);
std::optional<Executor> parseExecutor(std::string_view s);

// When a path binds and concretizes.
enum class ConcretizeOrder : uint8_t {
  WholeFirst,  // the complete fusion, then segment (FusionExecutorCache)
  PerSegment,  // segment, then each compute segment alone
  None,        // segments are compiled without concretization (FusionExecutor)
};

// "bind + concretize the whole fusion, then segment", ...
std::string_view orderText(ConcretizeOrder o);

// How a per-segment executor finds what a compute segment takes.
enum class SegmentLookup : uint8_t {
  Whole,         // bound with the complete fusion (FusionExecutorCache)
  BufferMap,     // MultiDeviceExecutor's tensors map: no scalars
  HieBufferMap,  // the host-IR interpreter's map
  Evaluator,     // an ExpressionEvaluator: extents of bound tensors are known
  UserProgram,   // a host program built by hand (hostir): not modelled
};

// The points a repro dated only by its print style comes from (ReproOrigin::printed_from /
// printed_before), when no point was asked for: the profile is the last of them, and the pipeline
// takes its verdict over every change point in the range (printed_range.h).
struct PrintedRange {
  uint32_t first = 0, last = 0;      // positions on main, inclusive
  std::optional<Frontend> frontend;  // the path asked for; nullopt: assumed at each point
  std::optional<Executor> executor;
  std::string why;  // "printed before 2024-09-04 (padded brackets, ...; nvFuser #2889 ...)"
  // printed_before is the history's first commit: no modelled point produced the repro.
  bool before_history = false;
};

struct Profile {
  nv::Point point;
  nv::State state;
  Frontend frontend = Frontend::Python;
  Executor executor = Executor::Fec;
  // Which path was assumed, and why (printed as notes): the repro did not say.
  std::vector<std::string> assumptions;

  // ---- derived: what the pipeline reads ----
  bool multi_device = false;  // the fusion has meshes
  ConcretizeOrder order = ConcretizeOrder::WholeFirst;
  bool scheduler = true;  // compute segments are scheduled with heuristics
  InputRewrite input_rewrite = InputRewrite::StripReductions;
  DidBindingRule did_rule = DidBindingRule::Unsharded;
  LoweringRules lowering;
  PrintStyle print_style = PrintStyle::Head;
  bool mesh_nd_print = true;  // n-D meshes print nested
  // The sharding passes before segmentation.
  bool sharding_passes = false;
  bool propagate = false;
  bool reshard_after = false;
  nv::MeshRule mesh_rule = nv::MeshRule::None;
  bool rejects_scalar_exprs = false;  // "Non-tv op is not supported yet"
  bool unmapped_axis_error = false;   // squeeze / select in isResharding
  ReductionDidScope reduction_did_reset = ReductionDidScope::None;
  bool reduction_did_stays_local = false;  // before #4209: iDID -> rDID is no resharding
  nv::PropagationReference propagation_reference = nv::PropagationReference::FirstMeshed;
  bool keep_target_types = false;
  bool backprop_meshes = false;           // from #3054: consumers give meshless inputs their mesh
  bool backprop_dids = false;             // from #3838: and their DID types, to inputs made by an expr
  bool backprop_loop_split = false;       // from #4353: DID types a consumer holds on a loop split too
  bool reduction_dids_counted = true;     // before #4353: a DID on a Reduction axis counts as held
  bool biased_linear_decomposed = false;  // from #4362: a row-parallel linear's bias after the sum
  OpBuildRules op_build;                  // what op builders copy from a meshed input
  MeshSegmenter mesh_segmenter = MeshSegmenter::ReshardingAlone;
  SegmentLookup lookup = SegmentLookup::Whole;
  bool kernel_without_scheduler = false;  // "Allocations must be based on constant integers ..."
  bool expr_eval_dispatch = false;        // a lone matmul / linear segment runs through ATen
  // The legacy Python frontend binds the whole fusion with local inputs
  // before schedule() sets meshes (pipeline/frontend_binding.h).
  bool pre_schedule_binding = false;
  bool transpose_tile_hazard = false;
  bool transpose_outer_hazard = false;
  // Reasons the path itself cannot be replayed at this point (not decided).
  std::vector<std::string> not_decided;
  // Set by resolveProfile for a repro its print style dates to a range.
  std::optional<PrintedRange> printed_range;

  // "C++ MultiDeviceExecutor with FusionExecutorCache per segment"
  std::string pathTitle() const;
  // "nvFuser 2024-06-30 (4e7365d18), C++ MultiDeviceExecutor with FusionExecutorCache per segment"
  std::string label() const;
  bool wholeFirst() const { return order == ConcretizeOrder::WholeFirst; }
};

struct ProfileRequest {
  std::string point;     // --nvfuser; empty: the repro's, else head
  std::string frontend;  // --frontend; empty: the repro's origin, else assumed
  std::string executor;  // --executor
};

struct ProfileError {
  std::string message;
  std::vector<std::string> suggestions;
};

// A usage error (exit 2) when the point is unknown, or the frontend or
// executor did not exist at that point.
std::variant<Profile, ProfileError> resolveProfile(const ProfileRequest& req, const Fusion& f);
// The profile of an already resolved point and path (fatal on an invalid path).
std::variant<Profile, ProfileError> profileAt(const nv::Point& point, std::optional<Frontend> frontend,
                                              std::optional<Executor> executor, const Fusion& f);

// The profile a repro asks for by itself (its recorded point and origin);
// where that is not a valid profile, head on its default path.
Profile defaultProfile(const Fusion& f);

// Whether `e` exists for `fe` at `state` (for a fusion with meshes or not);
// when it does not, why (a sentence naming the change that brings or took it).
std::optional<std::string> pathMissing(Frontend fe, Executor e, const nv::State& state, bool multi_device);

}  // namespace fc
