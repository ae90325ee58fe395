#include "reduce/candidates.h"

#include <algorithm>

#include "passes/segment.h"
#include "pipeline/pipeline.h"

namespace fc {

namespace {

bool flagged(const std::vector<uint8_t>& v, size_t i) { return i < v.size() && v[i] != 0; }

// Copies `src` into `g` as a fusion input: logical domain only (the root and
// the transforms from it are the dropped producer's business).
Tensor inputCopy(const Tensor& src) {
  Tensor dst;
  dst.name = src.name;
  dst.dtype = src.dtype;
  dst.memory = MemoryType::Global;
  dst.mesh = src.mesh;
  dst.logical = src.logical;
  if (src.root.empty()) {  // loop / allocation hang off logical: keep them
    dst.allocation = src.allocation;
    dst.contiguity = src.contiguity;
    dst.loop = src.loop;
    dst.transforms = src.transforms;
  }
  return dst;
}

// Builds the tensors, axes and expr list of the shrunk fusion.
class Builder {
 public:
  Builder(const Fusion& f, const Shrink& s, const LocalShapes& shapes) : f_(f), s_(s), shapes_(shapes) {}

  std::optional<Fusion> build() {
    decideExprs();
    decideOutputs();
    if (!s_.drop_output.empty()) deadCode();
    recomputeUse();
    // outputs: produced by a kept expr, or an original input still kept
    bool any_output = false;
    for (TensorId t : f_.outputs) any_output |= isOutput(t);
    for (TensorId t = 0; t < n_tensors_; ++t) any_output |= promoted_[t] != 0;
    if (!any_output) return std::nullopt;
    copyTensors();
    copyExprs();
    copyInputs();
    copyOutputs();
    copyConcrete();
    copySource();
    copySegmentation();
    fixSizeScalars();
    compactScalarsAndMeshes(g_);
    g_.rebuildUses();
    return std::move(g_);
  }

 private:
  const Fusion& f_;
  const Shrink& s_;
  const LocalShapes& shapes_;
  Fusion g_;
  size_t n_tensors_ = 0;
  std::vector<uint8_t> keep_, used_, produced_, orig_input_, out_, promoted_;
  std::vector<TensorId> remap_;
  std::vector<AxisId> axis_remap_;
  std::vector<ExprId> expr_remap_;
  std::vector<ScalarId> dropped_scalar_inputs_;

  bool isOutput(TensorId t) const { return out_[t] && (produced_[t] || orig_input_[t]); }

  void decideExprs() {
    n_tensors_ = f_.tensors.size();
    keep_.assign(f_.exprs.size(), 1);
    for (ExprId e = 0; e < f_.exprs.size(); ++e)
      if (flagged(s_.drop_expr, e)) keep_[e] = 0;
    orig_input_.assign(n_tensors_, 0);
    for (size_t i = 0; i < f_.inputs.size(); ++i) {
      const ValueRef& v = f_.inputs[i];
      if (v.isTensor()) orig_input_[v.id] = 1;
    }
    recomputeUse();
  }

  void recomputeUse() {
    used_.assign(n_tensors_, 0);
    produced_.assign(n_tensors_, 0);
    for (ExprId e = 0; e < f_.exprs.size(); ++e) {
      if (!keep_[e]) continue;
      for (const ValueRef& v : f_.exprs[e].inputs)
        if (v.isTensor()) used_[v.id] = 1;
      for (TensorId t : f_.exprs[e].outputs) produced_[t] = 1;
    }
  }

  void decideOutputs() {
    out_.assign(n_tensors_, 0);
    promoted_.assign(n_tensors_, 0);
    for (size_t i = 0; i < f_.outputs.size(); ++i)
      if (!flagged(s_.drop_output, i)) out_[f_.outputs[i]] = 1;
    // A kept producer whose every consumer was dropped: its tensor becomes
    // an output, so that the kept expr stays alive.
    std::vector<uint8_t> used_by_dropped(n_tensors_, 0);
    for (ExprId e = 0; e < f_.exprs.size(); ++e)
      if (!keep_[e])
        for (const ValueRef& v : f_.exprs[e].inputs)
          if (v.isTensor()) used_by_dropped[v.id] = 1;
    for (TensorId t = 0; t < n_tensors_; ++t)
      if (produced_[t] && used_by_dropped[t] && !used_[t] && !out_[t]) promoted_[t] = 1;
  }

  // Exprs no longer reaching an output (after outputs were dropped).
  void deadCode() {
    std::vector<uint8_t> live(n_tensors_, 0);
    for (TensorId t = 0; t < n_tensors_; ++t) live[t] = out_[t] || promoted_[t];
    std::vector<ExprId> order = topoOrder(f_);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      ExprId e = *it;
      if (!keep_[e]) continue;
      bool any = false;
      for (TensorId t : f_.exprs[e].outputs) any |= live[t] != 0;
      if (!any) {
        keep_[e] = 0;
        continue;
      }
      for (const ValueRef& v : f_.exprs[e].inputs)
        if (v.isTensor()) live[v.id] = 1;
    }
  }

  bool inputDropped(TensorId t) const {
    for (size_t i = 0; i < f_.inputs.size(); ++i)
      if (f_.inputs[i] == ValueRef::tensor(t)) return flagged(s_.drop_input, i) && !used_[t];
    return false;
  }

  AxisId copyAxis(AxisId a) {
    if (axis_remap_[a] == kNone) {
      g_.axes.push_back(f_.axes[a]);
      axis_remap_[a] = static_cast<AxisId>(g_.axes.size() - 1);
    }
    return axis_remap_[a];
  }

  void copyTensors() {
    copyReproMetadata(f_, g_);
    remap_.assign(n_tensors_, kNone);
    axis_remap_.assign(f_.axes.size(), kNone);
    for (TensorId t = 0; t < n_tensors_; ++t) {
      bool keep_input = orig_input_[t] && !inputDropped(t);
      if (!produced_[t] && !used_[t] && !keep_input) continue;
      const Tensor& src = f_.tensors[t];
      Tensor dst = (produced_[t] || orig_input_[t]) ? src : inputCopy(src);
      dst.name = g_.names.intern(f_.names.str(src.name));
      dst.definition = kNone;
      if (!produced_[t] && !orig_input_[t]) dst.root.clear();
      for (auto* dom : {&dst.root, &dst.logical, &dst.allocation, &dst.loop})
        for (AxisId& a : *dom) a = copyAxis(a);
      for (AxisTransform& tr : dst.transforms)
        for (AxisId* p : {&tr.in, &tr.in2, &tr.out, &tr.out2})
          if (*p != kNone) *p = copyAxis(*p);
      remap_[t] = static_cast<TensorId>(g_.tensors.size());
      for (AxisId a : dst.root) g_.axes[a].owner = remap_[t];
      for (AxisId a : dst.logical) g_.axes[a].owner = remap_[t];
      g_.tensors.push_back(std::move(dst));
    }
  }

  void copyExprs() {
    expr_remap_.assign(f_.exprs.size(), kNone);
    for (ExprId e = 0; e < f_.exprs.size(); ++e) {
      if (!keep_[e]) continue;
      Expr x = f_.exprs[e];
      for (ValueRef& v : x.inputs)
        if (v.isTensor()) v.id = remap_[v.id];
      for (TensorId& t : x.outputs) t = remap_[t];
      expr_remap_[e] = g_.addExpr(x.op, std::move(x.inputs), std::move(x.outputs), std::move(x.attrs));
    }
  }

  void copyInputs() {
    for (size_t i = 0; i < f_.inputs.size(); ++i) {
      const ValueRef& v = f_.inputs[i];
      if (v.isScalar()) {
        if (flagged(s_.drop_input, i)) {
          g_.scalars[v.id].kind = ScalarKind::Symbol;  // still an extent maybe: a free symbol now
          dropped_scalar_inputs_.push_back(v.id);
        } else {
          g_.inputs.push_back(v);
        }
      } else if (remap_[v.id] != kNone) {
        g_.inputs.push_back(ValueRef::tensor(remap_[v.id]));
      }
    }
    for (TensorId t = 0; t < n_tensors_; ++t)
      if (used_[t] && !produced_[t] && !orig_input_[t]) g_.inputs.push_back(ValueRef::tensor(remap_[t]));
  }

  void copyOutputs() {
    for (TensorId t : f_.outputs)
      if (isOutput(t) && remap_[t] != kNone &&
          std::find(g_.outputs.begin(), g_.outputs.end(), remap_[t]) == g_.outputs.end())
        g_.outputs.push_back(remap_[t]);
    for (TensorId t = 0; t < n_tensors_; ++t)
      if (promoted_[t] && keep_[f_.tensors[t].definition]) g_.outputs.push_back(remap_[t]);
  }

  // Where the user's file defines the kept tensors and exprs, renumbered with them; scalar ids
  // are the original's until compactScalarsAndMeshes renumbers them (and their positions).
  void copySource() {
    if (!f_.source) return;
    SourcePositions p;
    p.file = f_.source->file;
    p.tensors.resize(g_.tensors.size());
    for (TensorId t = 0; t < n_tensors_ && t < f_.source->tensors.size(); ++t)
      if (remap_[t] != kNone) p.tensors[remap_[t]] = f_.source->tensors[t];
    p.exprs.resize(g_.exprs.size());
    for (ExprId e = 0; e < f_.exprs.size() && e < f_.source->exprs.size(); ++e)
      if (expr_remap_[e] != kNone) p.exprs[expr_remap_[e]] = f_.source->exprs[e];
    p.scalars = f_.source->scalars;
    g_.source = std::move(p);
  }

  void copyConcrete() {
    for (const ConcreteInput& ci : f_.concrete_inputs) {
      ConcreteInput c = ci;
      if (ci.value.isTensor()) {
        if (remap_[ci.value.id] == kNone) continue;
        c.value.id = remap_[ci.value.id];
      } else if (std::find(dropped_scalar_inputs_.begin(), dropped_scalar_inputs_.end(), ci.value.id) !=
                 dropped_scalar_inputs_.end()) {
        continue;
      }
      g_.concrete_inputs.push_back(std::move(c));
    }
    if (f_.concrete_inputs.empty()) return;
    for (TensorId t = 0; t < n_tensors_; ++t) {
      if (!used_[t] || produced_[t] || orig_input_[t]) continue;
      auto it = shapes_.find(std::string(f_.tensorName(t)));
      if (it == shapes_.end() || it->second.size() != f_.nonReductionRank(t)) continue;
      ConcreteInput c;
      c.value = ValueRef::tensor(remap_[t]);
      c.shape = it->second;
      g_.concrete_inputs.push_back(std::move(c));
    }
  }

  void copySegmentation() {
    if (!f_.segmentation) return;
    Segmentation s;
    s.input_rewrite = f_.segmentation->input_rewrite;
    s.applied_fixes = f_.segmentation->applied_fixes;
    std::vector<uint32_t> seg_remap(f_.segmentation->segments.size(), kNone);
    for (size_t i = 0; i < f_.segmentation->segments.size(); ++i) {
      SegmentSpec spec;
      spec.scheduler = f_.segmentation->segments[i].scheduler;
      for (ExprId e : f_.segmentation->segments[i].exprs)
        if (e < expr_remap_.size() && expr_remap_[e] != kNone) spec.exprs.push_back(expr_remap_[e]);
      if (spec.exprs.empty()) continue;
      seg_remap[i] = static_cast<uint32_t>(s.segments.size());
      s.segments.push_back(std::move(spec));
    }
    for (const ForwardedExtent& fe : f_.segmentation->forward)
      if (fe.segment < seg_remap.size() && seg_remap[fe.segment] != kNone)
        s.forward.push_back({seg_remap[fe.segment], fe.symbol});
    if (!s.segments.empty()) g_.segmentation = std::move(s);
  }

  // size(T, d) of a tensor that is gone becomes a free symbol.
  void fixSizeScalars() {
    for (Scalar& s : g_.scalars) {
      if (s.op != ScalarOp::Size) continue;
      if (s.size_of < remap_.size() && remap_[s.size_of] != kNone) {
        s.size_of = remap_[s.size_of];
        continue;
      }
      std::string n = "size_" + std::string(f_.tensorName(s.size_of)) + "_" + std::to_string(s.size_dim);
      s.kind = ScalarKind::Symbol;
      s.op = ScalarOp::None;
      s.name = g_.names.intern(n);
      s.size_of = kNone;
    }
  }
};

}  // namespace

std::optional<Fusion> applyShrink(const Fusion& f, const Shrink& s, const LocalShapes& shapes) {
  return Builder(f, s, shapes).build();
}

namespace {

// Calls fn(ScalarId&) on every scalar reference of the fusion outside the
// scalar arena (derived operands are the caller's business).
template <class Fn>
void forEachScalarRef(Fusion& g, Fn&& fn) {
  forEachIdRef(
      g, fn, [](TensorId&) {},
      [&](ValueRef& v) {
        if (v.isScalar()) fn(v.id);
      });
}

}  // namespace

void compactScalarsAndMeshes(Fusion& g) {
  const size_t n = g.scalars.size();
  std::vector<uint8_t> ref(n, 0);
  std::vector<ScalarId> work;
  auto mark = [&](ScalarId s) {
    if (s != kNone && s < n && !ref[s]) {
      ref[s] = 1;
      work.push_back(s);
    }
  };
  forEachScalarRef(g, [&](ScalarId& s) { mark(s); });
  while (!work.empty()) {
    ScalarId s = work.back();
    work.pop_back();
    mark(g.scalars[s].lhs);
    mark(g.scalars[s].rhs);
  }
  std::vector<ScalarId> remap(n, kNone);
  std::vector<Scalar> kept;
  for (ScalarId s = 0; s < n; ++s)
    if (ref[s]) {
      remap[s] = static_cast<ScalarId>(kept.size());
      kept.push_back(g.scalars[s]);
    }
  auto re = [&](ScalarId& s) {
    if (s != kNone && s < n) s = remap[s];
  };
  // declaration order kept, renumbered densely
  std::vector<ScalarId> declared;
  for (ScalarId s = 0; s < kept.size(); ++s)
    if (kept[s].decl != kNone) declared.push_back(s);
  std::sort(declared.begin(), declared.end(),
            [&](ScalarId a, ScalarId b) { return kept[a].decl < kept[b].decl; });
  for (size_t i = 0; i < declared.size(); ++i) kept[declared[i]].decl = static_cast<uint32_t>(i);
  for (Scalar& s : kept) {
    re(s.lhs);
    re(s.rhs);
  }
  g.scalars = std::move(kept);
  forEachScalarRef(g, re);
  if (g.source && !g.source->scalars.empty()) {
    std::vector<LineCol> at(g.scalars.size());
    for (ScalarId s = 0; s < n && s < g.source->scalars.size(); ++s)
      if (remap[s] != kNone) at[remap[s]] = g.source->scalars[s];
    g.source->scalars = std::move(at);
  }

  // meshes no tensor uses
  std::vector<MeshId> mesh_remap(g.meshes.size(), kNone);
  for (const Tensor& t : g.tensors)
    if (t.mesh != kNone && t.mesh < mesh_remap.size()) mesh_remap[t.mesh] = 0;
  std::vector<Mesh> meshes;
  for (MeshId m = 0; m < g.meshes.size(); ++m)
    if (mesh_remap[m] != kNone) {
      mesh_remap[m] = static_cast<MeshId>(meshes.size());
      meshes.push_back(g.meshes[m]);
    }
  g.meshes = std::move(meshes);
  for (Tensor& t : g.tensors)
    if (t.mesh != kNone && t.mesh < mesh_remap.size()) t.mesh = mesh_remap[t.mesh];
}

LocalShapes localShapesOf(const Fusion& f, const Profile& profile) {
  LocalShapes out;
  if (f.concrete_inputs.empty()) return out;
  PipelineOptions o;
  o.profile = profile;
  PipelineResult r = runPipeline(f, o);
  if (!r.whole) return out;
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    std::vector<std::optional<int64_t>> s = localShape(f, *r.whole, t, profile.did_rule);
    std::vector<int64_t> v;
    bool known = true;
    for (const auto& d : s) {
      known &= d.has_value();
      if (d) v.push_back(*d);
    }
    if (known) out.emplace(std::string(f.tensorName(t)), std::move(v));
  }
  return out;
}

std::optional<Fusion> halveConcreteSizes(const Fusion& f) {
  Fusion g = f;
  bool changed = false;
  for (ConcreteInput& c : g.concrete_inputs)
    for (int64_t& d : c.shape)
      if (d > 1) {
        d = (d + 1) / 2;
        changed = true;
      }
  if (!changed) return std::nullopt;
  return g;
}

std::optional<Fusion> shrinkMesh(const Fusion& f, MeshId m) {
  if (m >= f.meshes.size() || f.meshes[m].shape.size() != 1 || f.meshes[m].devices.size() <= 1)
    return std::nullopt;
  Fusion g = f;
  Mesh& mesh = g.meshes[m];
  size_t keep = (mesh.devices.size() + 1) / 2;
  mesh.devices.resize(keep);
  mesh.shape[0] = static_cast<int64_t>(keep);
  return g;
}

std::vector<std::vector<ExprId>> segmentsOf(const Fusion& f, const Profile& profile) {
  std::vector<std::vector<ExprId>> out;
  if (f.segmentation) {
    for (const SegmentSpec& s : f.segmentation->segments) out.push_back(s.exprs);
    return out;
  }
  PipelineOptions o;
  o.profile = profile;
  PipelineResult r = runPipeline(f, o);
  for (const Segment& s : r.segmented.segments) out.push_back(s.exprs);
  return out;
}

std::vector<size_t> droppableInputs(const Fusion& f) {
  std::vector<uint8_t> used(f.tensors.size(), 0);
  for (const Expr& e : f.exprs)
    for (const ValueRef& v : e.inputs)
      if (v.isTensor()) used[v.id] = 1;
  std::vector<size_t> out;
  for (size_t i = 0; i < f.inputs.size(); ++i)
    if (f.inputs[i].isScalar() || !used[f.inputs[i].id]) out.push_back(i);
  return out;
}

}  // namespace fc
