// Sharding layout, shard extraction and assembly (see sharding.h).
#include "exec/sharding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "exec/exec_error.h"
#include "support/internal_error.h"

namespace fc::exec {

World::World(const Fusion& f) : f_(f) {
  for (const Mesh& m : f.meshes)
    for (int64_t d : m.devices) devices_.push_back(d);
  std::sort(devices_.begin(), devices_.end());
  devices_.erase(std::unique(devices_.begin(), devices_.end()), devices_.end());
  if (devices_.empty()) devices_.push_back(-1);
}

int64_t World::rankOf(int64_t device) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device);
  return (it != devices_.end() && *it == device) ? it - devices_.begin() : -1;
}

std::vector<int64_t> World::ranksOf(TensorId t) const {
  std::vector<int64_t> r;
  MeshId m = f_.tensors[t].mesh;
  if (m == kNone || m >= f_.meshes.size()) {
    for (int64_t i = 0; i < size(); ++i) r.push_back(i);
    return r;
  }
  for (int64_t d : f_.meshes[m].devices) r.push_back(rankOf(d));
  return r;
}

int64_t materializedDim(const Fusion& f, TensorId t, size_t pos) {
  const Tensor& tv = f.tensors[t];
  if (f.axes[tv.logical[pos]].iter == IterType::Reduction) return -1;
  int64_t d = 0;
  for (size_t i = 0; i < pos; ++i)
    if (f.axes[tv.logical[i]].iter != IterType::Reduction) ++d;
  return d;
}

std::vector<AxisId> materializedAxes(const Fusion& f, TensorId t) {
  std::vector<AxisId> r;
  for (AxisId a : f.tensors[t].logical)
    if (f.axes[a].iter != IterType::Reduction) r.push_back(a);
  return r;
}

namespace {
// Mesh axis a DID type maps to: DIDx innermost.
int64_t meshAxisOf(const Mesh& m, ParallelType pt) {
  int64_t k = pt == ParallelType::DIDx ? 0 : pt == ParallelType::DIDy ? 1 : 2;
  int64_t axis = static_cast<int64_t>(m.shape.size()) - 1 - k;
  return axis;
}
}  // namespace

int64_t meshCoordinate(const Mesh& mesh, int64_t pos, ParallelType pt) {
  int64_t axis = meshAxisOf(mesh, pt);
  if (axis < 0) return 0;
  int64_t rem = pos;
  for (int64_t a = static_cast<int64_t>(mesh.shape.size()) - 1; a >= 0; --a) {
    int64_t s = mesh.shape[a] > 0 ? mesh.shape[a] : 1;
    if (a == axis) return rem % s;
    rem /= s;
  }
  return 0;
}

std::vector<ShardDim> shardDims(const Fusion& f, TensorId t) {
  const Tensor& tv = f.tensors[t];
  std::vector<ShardDim> r;
  const Mesh* mesh = (tv.mesh != kNone && tv.mesh < f.meshes.size()) ? &f.meshes[tv.mesh] : nullptr;
  const Place where = Place::tensor(t);
  auto parts = [&](ParallelType pt) {
    int64_t p = mesh ? mesh->sizeFor(pt) : -1;
    if (p <= 0)
      fail("tensor " + std::string(f.tensorName(t)) + " is " + std::string(parallelTypeName(pt)) +
               "-parallel but its mesh has no such axis",
           where);
    return p;
  };
  for (size_t i = 0; i < tv.logical.size(); ++i) {
    const Axis& ax = f.axes[tv.logical[i]];
    if (ax.iter == IterType::Reduction || !isDeviceDim(ax.parallel)) continue;
    r.push_back({materializedDim(f, t, i), ax.parallel, parts(ax.parallel)});
  }
  // DID on loop axes made by an outer split of a logical axis.
  for (AxisId la : tv.loop) {
    const Axis& ax = f.axes[la];
    if (!isDeviceDim(ax.parallel)) continue;
    if (std::find(tv.logical.begin(), tv.logical.end(), la) != tv.logical.end()) continue;
    const AxisTransform* split = nullptr;
    for (const AxisTransform& tr : tv.transforms)
      if (tr.kind == AxisTransform::Kind::Split && tr.out == la) split = &tr;
    auto pos = split ? std::find(tv.logical.begin(), tv.logical.end(), split->in) : tv.logical.end();
    if (!split || pos == tv.logical.end() || split->inner_split)
      fail("tensor " + std::string(f.tensorName(t)) +
               ": a DID loop axis that is not the outer output of a split of a logical axis is not "
               "supported by the CPU executor",
           where);
    int64_t d = materializedDim(f, t, pos - tv.logical.begin());
    if (d >= 0) r.push_back({d, ax.parallel, parts(ax.parallel)});
  }
  return r;
}

Shape localShape(const Shape& global, const std::vector<ShardDim>& shards, const std::string& what) {
  Shape s = global;
  for (const ShardDim& sd : shards) {
    if (sd.dim < 0 || sd.dim >= static_cast<int64_t>(s.size())) fail(what + ": sharded dim out of range");
    if (s[sd.dim] % sd.parts != 0)
      fail(what + ": extent " + std::to_string(s[sd.dim]) + " of dim " + std::to_string(sd.dim) +
           " is not divisible by the mesh size " + std::to_string(sd.parts));
    s[sd.dim] /= sd.parts;
  }
  return s;
}

std::vector<int64_t> shardOffsets(const Shape& local, const std::vector<ShardDim>& shards, const Mesh* mesh,
                                  int64_t pos) {
  std::vector<int64_t> off(local.size(), 0);
  for (const ShardDim& sd : shards) {
    int64_t c = mesh ? meshCoordinate(*mesh, pos, sd.pt) : 0;
    off[sd.dim] = c * local[sd.dim];
  }
  return off;
}

namespace {

// Copies between a block of `big` at `off` and the whole of `small`.
template <bool kToSmall>
void copyBlock(HostTensor& big_or_src, HostTensor& small, const std::vector<int64_t>& off) {
  const Shape& ss = small.shape();
  int64_t n = small.numel();
  if (n == 0) return;
  std::vector<int64_t> bst = big_or_src.strides();
  std::vector<int64_t> idx(ss.size(), 0);
  int64_t base = 0;
  for (size_t d = 0; d < ss.size(); ++d) base += off[d] * bst[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = base;
    for (size_t d = 0; d < ss.size(); ++d) o += idx[d] * bst[d];
    if constexpr (kToSmall)
      small[i] = big_or_src[o];
    else
      big_or_src[o] = small[i];
    for (size_t d = ss.size(); d-- > 0;) {
      if (++idx[d] < ss[d]) break;
      idx[d] = 0;
    }
  }
}
}  // namespace

const Mesh* meshOf(const Fusion& f, TensorId t) {
  MeshId m = f.tensors[t].mesh;
  return (m != kNone && m < f.meshes.size()) ? &f.meshes[m] : nullptr;
}

HostTensor shardOf(const HostTensor& global, const std::vector<ShardDim>& shards, const Mesh* mesh,
                   int64_t pos) {
  Shape local = localShape(global.shape(), shards, "shard");
  HostTensor out(global.dtype(), local, global.budget());
  copyBlock<true>(const_cast<HostTensor&>(global), out, shardOffsets(local, shards, mesh, pos));
  return out;
}

HostTensor assemble(const std::vector<const HostTensor*>& locals, const std::vector<ShardDim>& shards,
                    const Mesh* mesh, MemoryBudget* budget, std::optional<int64_t>* replica_mismatch) {
  FC_CHECK(!locals.empty() && locals[0], "assemble needs at least one shard");
  Shape global = locals[0]->shape();
  for (const ShardDim& sd : shards) global[sd.dim] *= sd.parts;
  HostTensor out(locals[0]->dtype(), global, budget);
  // Which global elements a shard has written: one byte each, charged to
  // the budget while assembling.
  const auto seen_bytes = static_cast<uint64_t>(out.numel());
  if (budget) budget->reserve(seen_bytes);
  struct Release {
    MemoryBudget* b;
    uint64_t n;
    ~Release() {
      if (b) b->release(n);
    }
  } release{budget, seen_bytes};
  std::vector<uint8_t> seen(static_cast<size_t>(out.numel()), 0);
  std::vector<int64_t> gst = out.strides();
  for (size_t pos = 0; pos < locals.size(); ++pos) {
    const HostTensor& l = *locals[pos];
    FC_CHECK(l.shape() == locals[0]->shape(), "shards of one tensor differ in shape");
    std::vector<int64_t> off = shardOffsets(l.shape(), shards, mesh, static_cast<int64_t>(pos));
    std::vector<int64_t> idx(l.shape().size(), 0);
    for (int64_t i = 0; i < l.numel(); ++i) {
      int64_t o = 0;
      for (size_t d = 0; d < idx.size(); ++d) o += (idx[d] + off[d]) * gst[d];
      if (seen[o] != 0) {
        double a = out[o], b = l[i];
        // Bit-for-bit: +0 and -0 differ, NaNs compare equal to each other.
        bool same =
            std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) || (std::isnan(a) && std::isnan(b));
        if (!same && replica_mismatch && !*replica_mismatch) *replica_mismatch = o;
      } else {
        out[o] = l[i];
        seen[o] = 1;
      }
      for (size_t d = idx.size(); d-- > 0;) {
        if (++idx[d] < l.shape()[d]) break;
        idx[d] = 0;
      }
    }
  }
  return out;
}

}  // namespace fc::exec
