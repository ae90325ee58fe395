// Candidate transforms of the minimizer (reduce/reduce.h): each builds a
// new, smaller Fusion from the current one and never edits it in place.
// The result may still be invalid (the driver verifies every candidate).
//
// - applyShrink drops exprs, outputs and unused inputs at once:
//   * a tensor a dropped expr produced that kept exprs still use becomes a
//     fresh fusion input of the same dtype, mesh and logical domain (root
//     erased, global memory), with the per-rank sizes the current fusion
//     binds for it as its concrete input when the fusion has any;
//   * a tensor a kept expr produces that only dropped exprs used becomes a
//     fusion output (so nothing kept turns dead);
//   * dropping outputs removes the exprs that no longer reach an output;
//   * a dropped scalar input becomes a free symbol; unused tensor inputs go;
//   * an explicit segmentation keeps its non-empty segments (renumbered);
//   * unreferenced scalars and meshes are compacted away.
// - halveConcreteSizes / shrinkMesh shrink data sizes and device counts.
// All are linear in the size of the fusion.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "pipeline/profile.h"

namespace fc {

struct Shrink {
  std::vector<uint8_t> drop_expr;    // per ExprId; empty: none
  std::vector<uint8_t> drop_output;  // per position in Fusion::outputs; empty: none
  std::vector<uint8_t> drop_input;   // per position in Fusion::inputs; empty: none
};

// Per-rank sizes of every tensor whose non-Reduction extents the fusion's
// whole binding evaluates (by name): the concrete inputs of fresh inputs.
using LocalShapes = std::map<std::string, std::vector<int64_t>>;
LocalShapes localShapesOf(const Fusion& f, const Profile& profile);

// nullopt when nothing would be left (no outputs).
std::optional<Fusion> applyShrink(const Fusion& f, const Shrink& s, const LocalShapes& shapes);

// Every concrete size d > 1 becomes ceil(d / 2) (equal sizes stay equal);
// nullopt when no size is above 1.
std::optional<Fusion> halveConcreteSizes(const Fusion& f);

// A 1-D mesh keeps its first ceil(n / 2) devices; nullopt when the mesh is
// not 1-D or has one device.
std::optional<Fusion> shrinkMesh(const Fusion& f, MeshId m);

// The exprs of each segment the profile forms (explicit or computed).
std::vector<std::vector<ExprId>> segmentsOf(const Fusion& f, const Profile& profile);

// Inputs that applyShrink may drop: scalar inputs and tensor inputs no expr
// uses (positions in Fusion::inputs).
std::vector<size_t> droppableInputs(const Fusion& f);

// Removes scalars nothing references (renumbering the rest, declaration
// order kept) and meshes no tensor uses.
void compactScalarsAndMeshes(Fusion& f);

}  // namespace fc
