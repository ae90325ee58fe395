// The sharding passes nvFuser runs on a fusion with meshes before it
// segments it, as they were at the point replayed:
//  - the mesh requirement (every tensor input of an expr has a mesh; later,
//    all tensors or none);
//  - propagation: an output without a mesh takes the mesh of its first
//    meshed tensor input and DIDx on the axes mapped to that input's DIDx
//    axes (Reduction axes included, unless reset to Serial);
//  - resharding insertion: a resharding expr that cannot be lowered to a
//    communication gets a set after it (one input: the expr computes with
//    its input's sharding, the set reshards to the output's) or before it
//    (a set per input sharded differently from the output).
// The user's fusion is never edited: when a pass changes something, the
// result is a rewritten copy whose added tensors and exprs come after the
// original ones (so the original ids and locations stay valid). A repro
// that carries its own segmentation is a dump taken after these passes:
// nothing is replayed on it. O(exprs + axes), plus the copy when it changes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/resharding.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "passes/op_build_sharding.h"

namespace fc {

// What a path requires of the meshes of a multi-device fusion.
enum class MeshRequirement : uint8_t {
  None,             // nothing checked
  AtLeastOneInput,  // every expr has a meshed tensor input
  EveryTvInput,     // every tensor input of every expr has a mesh
  AllOrNone,        // after propagation: every tensor has a mesh, or none has
  SomeWithout,      // the same check, later in the pass list, other words
};

// Which meshed inputs of an expr propagation copies, in turn, onto its outputs without a mesh.
enum class ReferenceChoice : uint8_t {
  FirstMeshed,   // the first tensor input with a mesh
  MostParallel,  // the meshed input with the most DID axes (the first of equals)
  WeightsFirst,  // all meshed inputs: matmul B, A; linear weight, bias, input; else most DID axes first
};

// Which tensors propagation strips of a DID type on a Reduction loop axis.
enum class ReductionDidScope : uint8_t {
  None,           // no tensor
  AllTensors,     // every tensor of the fusion, annotated ones included
  PropagatedOnly  // the tensors propagation gives a mesh
};

struct ShardingOptions {
  bool propagate = false;
  ReferenceChoice reference = ReferenceChoice::FirstMeshed;
  // An output without a mesh keeps its own DID types (a reference gives only the others, and
  // resets nothing to Serial); else every mapped axis takes the reference's DID type or Serial.
  bool keep_target_types = false;
  // After propagation, tensor inputs without a mesh take their consumer's meshed output's mesh
  // (a fusion input too); with backprop_dids, an input that is no fusion input and had no mesh or
  // no DID axis also takes that output's DID types on the axes the expr maps.
  bool backprop_meshes = false;
  bool backprop_dids = false;
  // With backprop_dids: whether a DID type the consumer holds on a loop split (not on the mapped
  // axis itself) reaches the input too (from #4353; before, the walk back moved no DID transform).
  bool backprop_loop_split = false;
  // Whether a DID type on a Reduction loop axis counts among the types a tensor already has
  // (propagation then gives it no other axis of that type; on the walk back, the tensor counts as
  // sharded). From #4353, Reduction axes are ignored.
  bool reduction_dids_counted = true;
  // What an op built after the repro meshed its input (Tensor::mesh_set_at) took from it when
  // it was built (passes/op_build_sharding.h).
  OpBuildRules build;
  ReductionDidScope reduction_did_reset = ReductionDidScope::None;
  // A DID type kept on a Reduction axis that a reduction makes from an axis of the same type is
  // no resharding (the types are compared as they are): the reduction stays local to each device.
  // Not modelled: such an expr is reported not decided.
  bool reduction_did_stays_local = false;
  bool insert_reshardings = false;
  bool reshard_after = false;  // one-input exprs reshard after, not before
  MeshRequirement mesh = MeshRequirement::None;
  bool reject_scalar_exprs = false;  // a scalar expr fails "Non-tv op is not supported yet"
  bool unmapped_axis_error = false;  // isResharding fails on a squeezed producer axis
  LoweringRules lowering;
  std::string file;
};

struct ShardingResult {
  std::shared_ptr<Fusion> rewritten;  // null: the passes changed nothing
  std::vector<uint8_t> resharding;    // per expr of the fusion the passes leave
  std::vector<std::string> trace;     // what each pass did
  // Added set exprs, each with the original expr it was added for.
  std::vector<std::pair<ExprId, ExprId>> inserted;
  // topoOrder of the fusion the passes leave, when they added no expr (the
  // passes change meshes and parallel types, not the graph); empty otherwise.
  std::vector<ExprId> order;
  bool failed = false;  // a requirement failed: nvFuser stops in these passes
  // Fusion inputs that took a mesh from the walk back (ShardingOptions::backprop_meshes): an
  // executor that binds the fusion before these passes binds them without it.
  std::vector<TensorId> inputs_meshed_back;
};

// Whether each expr reshards (a pure function of the fusion; a large fusion's
// exprs are split over every core).
std::vector<uint8_t> reshardingFlags(const Fusion& f);

ShardingResult runShardingPasses(const Fusion& f, const ShardingOptions& o, DiagnosticSink& sink);

}  // namespace fc
