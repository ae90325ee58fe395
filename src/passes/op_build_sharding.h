// What nvFuser's op builders (csrc/ops) give an op's output from inputs whose
// mesh and DID types the repro set before it built the op (Tensor::mesh_set_at:
// a C++ test that calls setDeviceMesh and parallelize first). Each builder is a
// chain of steps, and the output takes a mesh or an axis's DID type only
// when every step of its chain passes it on:
// - NewOutput (ops/utils.cpp newOutputTV / newOutputIterDomain: pointwise,
//   cast, set, where): the first meshed input's mesh from #2734; per axis the
//   inputs' DID types from #2734 (a Broadcast input axis counts from #2877)
//   until #5497;
// - Reduction (arith.cpp newForReduction, Welford): the input's mesh and the
//   kept axes' DID types from #2744; reduced axes are Serial;
// - Broadcast (also keepdim): the mesh from #3180, kept axes' DID types from
//   #5698;
// - Permute (mesh from #3047), Squeeze (#3180), Expand, Pad, Slice: kept
//   axes' DID types always (IterDomainBuilder copies the parallel type); a
//   resized axis is Serial; Expand, Pad and Slice never set a mesh;
// - Matmul, Linear, Cat: per axis the inputs' DID types while NewOutput
//   copies them (matmul's rK too); Linear's input mesh from #4362; no mesh
//   otherwise;
// - Reshape: static (ir/op_rules.h isStaticReshape) the input's mesh from #3482;
//   dynamic nothing. A static reshape of an input with a DID axis is left
//   open (its merges and splits are not replayed).
// Mean is Reduction, NewOutput; Var NewOutput, Reduction, NewOutput; VarMean's
// var Reduction, NewOutput and its mean Reduction; keepdim adds Broadcast.
// O(exprs + their axes); nothing is allocated when no tensor's mesh was set
// before an op.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/fusion.h"

namespace fc {

// Which builder behaviours the replayed nvFuser point has (each from its change point).
struct OpBuildRules {
  bool new_output_mesh = false;         // #2734
  bool new_output_dids = false;         // #2734 until #5497
  bool broadcast_axis_dids = false;     // #2877: a Broadcast input axis's DID type counts
  bool reduction = false;               // #2744: mesh and kept axes' DID types
  bool permute_mesh = false;            // #3047
  bool broadcast_squeeze_mesh = false;  // #3180
  bool static_reshape_mesh = false;     // #3482
  bool linear_mesh = false;             // #4362
  bool broadcast_dids = false;          // #5698
};

struct BuiltSharding {
  std::vector<std::pair<TensorId, MeshId>> meshes;    // outputs without a mesh that took one
  std::vector<std::pair<AxisId, ParallelType>> axes;  // output axes that took a DID type
  size_t built = 0;                                   // outputs built from a sharded input
  std::vector<std::pair<ExprId, std::string>> open;   // builders not replayed, and why
};

BuiltSharding opBuildSharding(const Fusion& f, const OpBuildRules& rules);

}  // namespace fc
