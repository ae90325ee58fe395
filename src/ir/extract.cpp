#include "ir/extract.h"

#include <algorithm>

namespace fc {

Fusion extractSubfusion(const Fusion& f, const std::vector<ExprId>& exprs,
                        const std::vector<TensorId>& outputs, bool strip_reductions) {
  Fusion g;
  copyReproMetadata(f, g);

  std::vector<uint8_t> produced(f.tensors.size(), 0), used(f.tensors.size(), 0);
  for (ExprId e : exprs) {
    for (TensorId t : f.exprs[e].outputs) produced[t] = 1;
    for (const ValueRef& v : f.exprs[e].inputs)
      if (v.isTensor()) used[v.id] = 1;
  }
  std::vector<TensorId> remap(f.tensors.size(), kNone);
  std::vector<AxisId> axis_remap(f.axes.size(), kNone);
  auto copyAxis = [&](AxisId a) {
    if (axis_remap[a] == kNone) {
      g.axes.push_back(f.axes[a]);
      axis_remap[a] = static_cast<AxisId>(g.axes.size() - 1);
    }
    return axis_remap[a];
  };
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    if (!produced[t] && !used[t]) continue;
    const Tensor& src = f.tensors[t];
    Tensor dst;
    dst.name = g.names.intern(f.names.str(src.name));
    dst.dtype = src.dtype;
    dst.memory = src.memory;
    dst.mesh = src.mesh;
    bool is_input = !produced[t];
    if (is_input) {
      dst.memory = MemoryType::Global;
      for (AxisId a : src.logical)
        if (!strip_reductions || f.axes[a].iter != IterType::Reduction) dst.logical.push_back(copyAxis(a));
    } else {
      for (AxisId a : src.root) dst.root.push_back(copyAxis(a));
      for (AxisId a : src.logical) dst.logical.push_back(copyAxis(a));
      for (AxisId a : src.allocation) dst.allocation.push_back(copyAxis(a));
      dst.contiguity = src.contiguity;
      for (const AxisTransform& tr : src.transforms) {
        AxisTransform c = tr;
        for (AxisId* p : {&c.in, &c.in2, &c.out, &c.out2})
          if (*p != kNone) *p = copyAxis(*p);
        dst.transforms.push_back(c);
      }
      for (AxisId a : src.loop) dst.loop.push_back(copyAxis(a));
    }
    remap[t] = static_cast<TensorId>(g.tensors.size());
    for (AxisId a : dst.root) g.axes[a].owner = remap[t];
    for (AxisId a : dst.logical) g.axes[a].owner = remap[t];
    g.tensors.push_back(std::move(dst));
    if (is_input) g.inputs.push_back(ValueRef::tensor(remap[t]));
  }
  for (Scalar& s : g.scalars)
    if (s.op == ScalarOp::Size) {
      if (s.size_of < remap.size() && remap[s.size_of] != kNone) {
        s.size_of = remap[s.size_of];
      } else {  // the tensor is outside: the size becomes a free symbol
        s.kind = ScalarKind::Symbol;
        s.op = ScalarOp::None;
        s.name =
            g.names.intern("size_" + std::string(f.tensorName(s.size_of)) + "_" + std::to_string(s.size_dim));
        s.size_of = kNone;
      }
    }
  std::vector<ExprId> sorted = exprs;
  std::sort(sorted.begin(), sorted.end());
  for (ExprId e : sorted) {
    Expr x = f.exprs[e];
    for (ValueRef& v : x.inputs)
      if (v.isTensor()) v.id = remap[v.id];
    for (TensorId& t : x.outputs) t = remap[t];
    g.addExpr(x.op, std::move(x.inputs), std::move(x.outputs), std::move(x.attrs));
  }
  for (const ValueRef& v : f.inputs)
    if (v.isScalar()) {
      bool needed = false;
      for (ExprId e : exprs)
        for (const ValueRef& u : f.exprs[e].inputs) needed |= u == v;
      if (needed) g.inputs.push_back(v);
    }
  for (TensorId t : outputs)
    if (remap[t] != kNone) g.outputs.push_back(remap[t]);
  g.rebuildUses();
  return g;
}

}  // namespace fc
