// The checks of meshes, axes and tensors: axis owners, axis numbers and
// extents, tensor domains and transforms, tensor sizes.
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/verifier_checks.h"
#include "support/checked.h"

namespace fc::verify {

// ------------------------------------------------------------ meshes
void Checks::checkMeshes(Reporter& r) {
  for (MeshId m = 0; m < f_.meshes.size(); ++m) {
    const Mesh& mesh = f_.meshes[m];
    const Place p = Place::mesh(m);
    if (mesh.devices.empty() || mesh.shape.empty()) {
      r.error(DiagCode::EmptyMesh, "mesh " + num(m) + " has no devices",
              mesh.devices.empty() ? p.key(F::Devices) : p.key(F::Shape));
      continue;
    }
    bool shape_ok = true;
    int64_t product = 1;
    for (size_t j = 0; j < mesh.shape.size(); ++j) {
      if (mesh.shape[j] <= 0) {
        r.error(DiagCode::BadMesh,
                "mesh " + num(m) + " has a non-positive extent " + std::to_string(mesh.shape[j]),
                p.at(F::Shape, j));
        shape_ok = false;
        continue;
      }
      auto prod = checkedMul(product, mesh.shape[j]);
      if (!prod) {
        r.error(DiagCode::BadMesh, "mesh " + num(m) + " shape overflows", p.at(F::Shape, j));
        shape_ok = false;
        break;
      }
      product = *prod;
    }
    if (shape_ok && product != mesh.size()) {
      std::string shape;
      for (size_t j = 0; j < mesh.shape.size(); ++j) shape += (j ? ", " : "") + std::to_string(mesh.shape[j]);
      r.error(DiagCode::BadMesh,
              "mesh " + num(m) + " has " + num(mesh.devices.size()) + " devices but its shape [" + shape +
                  "] needs " + std::to_string(product),
              p.key(F::Devices))
          .note("the shape is here", r.at(p.key(F::Shape)));
    }
    std::unordered_map<int64_t, size_t> seen;
    for (size_t k = 0; k < mesh.devices.size(); ++k) {
      int64_t d = mesh.devices[k];
      if (d < 0) {
        r.error(DiagCode::BadMesh, "mesh " + num(m) + " has a negative device id " + std::to_string(d),
                p.at(F::Devices, k));
        continue;
      }
      auto [it, fresh] = seen.emplace(d, k);
      if (!fresh)
        r.error(DiagCode::BadMesh, "mesh " + num(m) + " lists device " + std::to_string(d) + " twice",
                p.at(F::Devices, k))
            .note("first listed here", r.at(p.at(F::Devices, it->second)));
    }
  }
}

// ------------------------------------------------------------ axis owners
// The first tensor whose slots name an axis owns it; a dangling axis or a
// second owner is a finding.
void Checks::claimAxes(Reporter& r) {
  st_.axis_owner.assign(f_.axes.size(), kNone);
  st_.tensor_ok.assign(f_.tensors.size(), 1);
  st_.max_axis_number = claimAxes(0, f_.tensors.size(), r);
}

// claimAxes for tensors [b, e); returns the largest number of an axis
// they claimed.
uint32_t Checks::claimAxes(size_t b, size_t e, Reporter& r) {
  const bool speculative = r.speculative();
  const size_t na = f_.axes.size();
  const Axis* axes = f_.axes.data();
  TensorId* owner_of = st_.axis_owner.data();
  uint32_t top = 0;
  for (size_t i = b; i < e; ++i) {
    const TensorId t = static_cast<TensorId>(i);
    forEachAxisSlot(f_.tensors[t], [&](AxisId a, AxisSite::Field field, size_t index) {
      const TensorId owner = a < na ? claim(owner_of[a], t, speculative) : kNone;
      if (a < na && owner == kNone) {
        top = std::max(top, axes[a].number);
      } else if (a >= na || owner != t) {
        reportClaim(AxisSite{t, field, static_cast<uint32_t>(index)}, a, owner, r);
        st_.tensor_ok[t] = 0;
      }
    });
  }
  return top;
}

// Slot `site` names the dangling axis a, or axis a that `owner` owns.
void Checks::reportClaim(const AxisSite& site, AxisId a, TensorId owner, Reporter& r) {
  if (a >= f_.axes.size()) {
    r.error(DiagCode::DanglingAxis, tname(site.t) + " names an axis that does not exist", sitePlace(site));
    return;
  }
  r.error(DiagCode::DanglingAxis,
          tname(site.t) + " names axis " + axisDesc(a) + ", which belongs to " + tname(owner),
          sitePlace(site))
      .note("the axis is defined here", r.at(sitePlace(siteIn(f_, owner, a))));
}

// ------------------------------------------------------------ axis fields
// A scalar whose finding is not repeated. Speculative checks leave the
// shared flags alone (their findings are dropped).
void Checks::markReported(ScalarId s, Reporter& r) {
  if (!r.speculative()) st_.scalar_reported[s] = 1;
}

void Checks::checkExtent(AxisId a, ScalarId s, PlaceField field, Reporter& r) {
  const bool expanded = field == F::Expanded;
  auto ptr = [&] { return axisPlace(a).key(field); };
  if (s == kNone || s >= f_.scalars.size()) {
    if (s == kNone && expanded) return;
    r.error(DiagCode::BadExtent,
            "axis " + axisDesc(a) + " has no " + (expanded ? "expanded extent" : "extent"), ptr());
    return;
  }
  if (st_.scalar_bad[s] || st_.scalar_reported[s]) return;
  const Scalar& sc = f_.scalars[s];
  auto noteDecl = [&](Diagnostic& d) {
    if (sc.decl != kNone) d.note(scalarDesc(s) + " is declared here", r.at(Place::scalar(sc.decl)));
  };
  if (!st_.scalar_int[s]) {
    markReported(s, r);
    noteDecl(r.error(DiagCode::BadExtent,
                     "the " + std::string(expanded ? "expanded extent" : "extent") + " of axis " +
                         axisDesc(a) + " is not an integer (" + scalarDesc(s) + " has dtype " +
                         std::string(dtypeName(sc.dtype)) + ")",
                     ptr()));
    return;
  }
  if (st_.scalar_overflow[s]) {
    markReported(s, r);
    noteDecl(r.error(DiagCode::NumberOutOfRange,
                     "the " + std::string(expanded ? "expanded extent" : "extent") + " of axis " +
                         axisDesc(a) + " is a constant expression that overflows int64 or divides by zero",
                     ptr()));
    return;
  }
  if (st_.scalar_const[s] && *st_.scalar_const[s] < 0) {
    markReported(s, r);
    noteDecl(r.error(DiagCode::NegativeExtent,
                     "axis " + axisDesc(a) + " has the negative " +
                         (expanded ? "expanded extent " : "extent ") + std::to_string(*st_.scalar_const[s]),
                     ptr()));
  }
}

// The first axis per number is found in a flat table when the numbers
// are dense (they are in canonical repros), in a hash map otherwise.
void Checks::checkAxes(Reporter& r) {
  if (axisNumbersDense()) {
    std::vector<AxisId> first(size_t{st_.max_axis_number} + 1, kNone);
    checkAxes(0, f_.axes.size(), first, r);
    return;
  }
  std::unordered_map<uint32_t, AxisId> first_of_number;
  for (AxisId a = 0; a < f_.axes.size(); ++a) {
    if (st_.axis_owner[a] == kNone) continue;  // not part of any tensor
    const AxisId first = first_of_number.emplace(f_.axes[a].number, a).first->second;
    if (first != a) reportAxisNumber(a, first, r);
    checkExtent(a, f_.axes[a].extent, F::Extent, r);
    checkExtent(a, f_.axes[a].expanded, F::Expanded, r);
  }
}

// checkAxes for axes [b, e) when the numbers are dense: `first_of_number`
// holds the first axis of each number.
void Checks::checkAxes(size_t b, size_t e, std::vector<AxisId>& first_of_number, Reporter& r) {
  const bool speculative = r.speculative();
  const Axis* axes = f_.axes.data();
  const TensorId* owner_of = st_.axis_owner.data();
  AxisId* first_of = first_of_number.data();
  for (size_t i = b; i < e; ++i) {
    const AxisId a = static_cast<AxisId>(i);
    if (owner_of[a] == kNone) continue;  // not part of any tensor
    const AxisId first = claim(first_of[axes[a].number], a, speculative);
    if (first != kNone) reportAxisNumber(a, first, r);
    checkExtent(a, axes[a].extent, F::Extent, r);
    checkExtent(a, axes[a].expanded, F::Expanded, r);
  }
}

// Axis a has the number of axis `first`.
void Checks::reportAxisNumber(AxisId a, AxisId first, Reporter& r) {
  r.error(DiagCode::DuplicateAxisNumber,
          "axis number " + num(f_.axes[a].number) + " is used by " + tname(st_.axis_owner[a]) + " and " +
              tname(st_.axis_owner[first]),
          axisPlace(a).key(F::Id))
      .note("first used here", r.at(axisPlace(first).key(F::Id)));
}

// ------------------------------------------------------------ tensor domains and sizes
void Checks::checkTensorDomains(Reporter& r) {
  std::vector<uint32_t> stamp(f_.axes.size(), kNone);
  uint32_t cur = 0;
  for (TensorId t = 0; t < f_.tensors.size(); ++t) checkTensorDomain(t, stamp, cur, r);
}

void Checks::checkTensorSizes(Reporter& r) {
  for (TensorId t = 0; t < f_.tensors.size(); ++t) checkTensorSize(t, r);
}

void Checks::checkTensors(size_t b, size_t e, std::vector<uint32_t>& stamp, Reporter& r) {
  uint32_t cur = 0;
  for (size_t i = b; i < e; ++i) {
    const TensorId t = static_cast<TensorId>(i);
    checkTensorDomain(t, stamp, cur, r);
    checkTensorSize(t, r);
  }
}

// The product of a tensor's constant logical extents must fit int64 (the
// executors and nvFuser compute element counts in int64).
void Checks::checkTensorSize(TensorId t, Reporter& r) {
  if (!st_.tensor_ok[t]) return;
  const std::vector<AxisId>& dom = f_.tensors[t].logical;
  int64_t product = 1;
  for (size_t j = 0; j < dom.size(); ++j) {
    if (dom[j] >= f_.axes.size()) break;
    ScalarId e = f_.axes[dom[j]].extent;
    if (e == kNone || e >= f_.scalars.size() || !st_.scalar_const[e] || *st_.scalar_const[e] < 0) continue;
    auto prod = checkedMul(product, *st_.scalar_const[e]);
    if (!prod) {
      r.error(DiagCode::NumberOutOfRange,
              "the constant extents of " + tname(t) + " multiply beyond int64 at axis " + axisDesc(dom[j]),
              axisPlace(dom[j]).key(F::Extent));
      break;
    }
    product = *prod;
  }
}

// `stamp` marks axes per domain with the value `cur` is advanced to; only
// the axes of `t` are read or written.
void Checks::checkTensorDomain(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r) {
  const Tensor& tv = f_.tensors[t];
  if (tv.mesh != kNone && tv.mesh >= f_.meshes.size()) {
    r.error(DiagCode::DanglingMesh,
            tname(t) + " names mesh " + num(tv.mesh) + " but the repro has " + num(f_.meshes.size()) +
                (f_.meshes.size() == 1 ? " mesh" : " meshes"),
            tp(t).key(F::Mesh));
  }
  if (!st_.tensor_ok[t]) return;
  // Duplicates inside one domain.
  auto noDup = [&](const std::vector<AxisId>& dom, const char* name, PlaceField field) {
    ++cur;
    for (size_t j = 0; j < dom.size(); ++j) {
      if (stamp[dom[j]] == cur) {
        r.error(DiagCode::DanglingAxis,
                tname(t) + " lists axis " + axisDesc(dom[j]) + " twice in its " + name, tp(t).at(field, j));
        st_.tensor_ok[t] = 0;
      }
      stamp[dom[j]] = cur;
    }
  };
  noDup(tv.root, "root", F::Root);
  noDup(tv.logical, "logical", F::Logical);
  noDup(tv.allocation, "allocation", F::Allocation);
  noDup(tv.loop, "loop", F::Loop);
  if (!st_.tensor_ok[t]) return;
  // A DID axis of a meshed tensor needs a mesh dimension of its type (one report per tensor). A
  // DID axis without a mesh is well formed: nvFuser's sharding passes may give the tensor one, and
  // the pipeline decides what happens where none does.
  bool did_reported = false;
  auto didCheck = [&](const std::vector<AxisId>& dom, PlaceField field) {
    for (size_t j = 0; j < dom.size() && !did_reported; ++j) {
      const Axis& ax = f_.axes[dom[j]];
      if (!isDeviceDim(ax.parallel)) continue;
      auto ptr = [&] { return tp(t).at(field, j); };  // for a diagnostic only
      if (tv.mesh != kNone && tv.mesh < f_.meshes.size() && !f_.meshes[tv.mesh].devices.empty() &&
          !f_.meshes[tv.mesh].shape.empty() && f_.meshes[tv.mesh].sizeFor(ax.parallel) < 0) {
        r.error(DiagCode::DidWithoutMesh,
                tname(t) + " has the " + std::string(parallelTypeName(ax.parallel)) + " axis " +
                    axisDesc(dom[j]) + " but its mesh " + num(tv.mesh) + " has only " +
                    num(f_.meshes[tv.mesh].shape.size()) + " dimension(s)",
                ptr())
            .note("the mesh is here", r.at(Place::mesh(tv.mesh)));
        did_reported = true;
      }
    }
  };
  didCheck(tv.root, F::Root);
  didCheck(tv.logical, F::Logical);
  didCheck(tv.allocation, F::Allocation);
  didCheck(tv.loop, F::Loop);
  // Contiguity: aligned with allocation (or logical), null exactly on Broadcast.
  const auto& alloc = tv.allocationDomain();
  const char* alloc_name = tv.allocation.empty() ? "logical" : "allocation";
  if (!tv.contiguity.empty()) {
    if (tv.contiguity.size() != alloc.size()) {
      r.error(DiagCode::BadContiguity,
              tname(t) + " has " + num(tv.contiguity.size()) + " contiguity entries but its " + alloc_name +
                  " domain has " + num(alloc.size()) + " axes",
              tp(t).key(F::Contiguity));
    } else {
      for (size_t j = 0; j < alloc.size(); ++j) {
        bool bcast = f_.axes[alloc[j]].iter == IterType::Broadcast;
        if (bcast && tv.contiguity[j].has_value())
          r.error(DiagCode::BadContiguity,
                  "contiguity of broadcast axis " + axisDesc(alloc[j]) + " of " + tname(t) + " must be null",
                  tp(t).at(F::Contiguity, j));
        else if (!bcast && !tv.contiguity[j].has_value())
          r.error(DiagCode::BadContiguity,
                  "contiguity of axis " + axisDesc(alloc[j]) + " of " + tname(t) +
                      " is null, but only broadcast axes have null contiguity",
                  tp(t).at(F::Contiguity, j));
      }
    }
  }
  checkTransforms(t, stamp, cur, r);
}

void Checks::checkTransforms(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r) {
  const Tensor& tv = f_.tensors[t];
  if (tv.transforms.empty()) return;
  // stamp == known: root/logical or an earlier output; consumed tracks inputs.
  const uint32_t known = ++cur;
  const uint32_t consumed = ++cur;
  for (AxisId a : tv.root) stamp[a] = known;
  for (AxisId a : tv.logical)
    if (tv.root.empty() || stamp[a] != known) stamp[a] = known;
  // Axes produced by a transform are not "known" before it: logical axes
  // that a root->logical transform produces are marked when produced.
  std::unordered_map<AxisId, size_t> output_of;
  for (size_t k = 0; k < tv.transforms.size(); ++k) {
    const AxisTransform& x = tv.transforms[k];
    for (AxisId o : {x.out, x.kind == AxisTransform::Kind::Split ? x.out2 : kNone})
      if (o != kNone && !output_of.emplace(o, k).second)
        r.error(DiagCode::BadTransform, "axis " + axisDesc(o) + " of " + tname(t) + " is produced twice",
                tp(t).at(F::Transforms, k));
  }
  if (!tv.root.empty())
    for (AxisId a : tv.logical)
      if (output_of.count(a)) stamp[a] = 0;  // produced from root by a transform
  for (size_t k = 0; k < tv.transforms.size(); ++k) {
    const AxisTransform& x = tv.transforms[k];
    auto p = [&] { return tp(t).at(F::Transforms, k); };
    const bool split = x.kind == AxisTransform::Kind::Split;
    std::pair<AxisId, PlaceField> ins_buf[2] = {{x.in, split ? F::In : F::Outer}, {x.in2, F::Inner}};
    const std::span<std::pair<AxisId, PlaceField>> ins(ins_buf, split ? 1 : 2);
    bool ok = true;
    for (auto& [a, field] : ins) {
      auto ptr = [&, field = field] { return p().key(field); };
      if (stamp[a] == consumed) {
        r.error(DiagCode::BadTransform, "axis " + axisDesc(a) + " of " + tname(t) + " is transformed twice",
                ptr());
        ok = false;
      } else if (stamp[a] != known) {
        r.error(DiagCode::BadTransform,
                "axis " + axisDesc(a) + " of " + tname(t) +
                    " is used by a transform before it exists (not in root/logical, not an earlier output)",
                ptr());
        ok = false;
      }
    }
    if (!split && x.in == x.in2) {
      r.error(DiagCode::BadTransform, "merge of axis " + axisDesc(x.in) + " with itself", p().key(F::Inner));
      ok = false;
    }
    if (split) {
      ScalarId fct = x.factor;
      if (fct == kNone || fct >= f_.scalars.size()) {
        r.error(DiagCode::BadTransform, "split of " + axisDesc(x.in) + " has no factor", p().key(F::Factor));
      } else if (!st_.scalar_bad[fct] &&
                 (!st_.scalar_int[fct] || (st_.scalar_const[fct] && *st_.scalar_const[fct] <= 0))) {
        r.error(DiagCode::BadTransform, "split factor " + scalarDesc(fct) + " must be a positive integer",
                p().key(F::Factor));
      }
    }
    if (!ok) continue;
    for (auto& in : ins) stamp[in.first] = consumed;
    stamp[x.out] = known;
    if (split) stamp[x.out2] = known;
  }
}

}  // namespace fc::verify
