#include "ir/fusion.h"

#include <algorithm>
#include <charconv>

#include "support/internal_error.h"

namespace fc {

namespace {

ScalarId push(std::vector<Scalar>& scalars, const Scalar& s) {
  scalars.push_back(s);
  return static_cast<ScalarId>(scalars.size() - 1);
}

Scalar scalarOf(ScalarKind kind, DType dtype) {
  Scalar s;
  s.kind = kind;
  s.dtype = dtype;
  return s;
}

}  // namespace

ScalarId Fusion::addSymbol(std::string_view n, DType dtype) {
  Scalar s = scalarOf(ScalarKind::Symbol, dtype);
  s.name = names.intern(n);
  return push(scalars, s);
}

ScalarId Fusion::addScalarInput(std::string_view n, DType dtype) {
  ScalarId id = addSymbol(n, dtype);
  scalars[id].kind = ScalarKind::Input;
  return id;
}

ScalarId Fusion::addConstInt(int64_t v, DType dtype) {
  Scalar s = scalarOf(ScalarKind::Constant, dtype);
  s.value.kind = ConstValue::Kind::Int;
  s.value.i = v;
  return push(scalars, s);
}

ScalarId Fusion::addConstFloat(double v, DType dtype) {
  Scalar s = scalarOf(ScalarKind::Constant, dtype);
  s.value.kind = ConstValue::Kind::Float;
  s.value.f = v;
  return push(scalars, s);
}

ScalarId Fusion::addConstComplex(double re, double im, DType dtype) {
  ScalarId id = addConstFloat(re, dtype);
  scalars[id].value.im = im;
  return id;
}

ScalarId Fusion::addConstBool(bool v) {
  Scalar s = scalarOf(ScalarKind::Constant, DType::Bool);
  s.value.kind = ConstValue::Kind::Bool;
  s.value.i = v ? 1 : 0;
  return push(scalars, s);
}

ScalarId Fusion::addDerived(ScalarOp op, ScalarId lhs, ScalarId rhs, DType dtype) {
  Scalar s = scalarOf(ScalarKind::Derived, dtype);
  s.op = op;
  s.lhs = lhs;
  s.rhs = rhs;
  return push(scalars, s);
}

ScalarId Fusion::addSize(TensorId t, int32_t dim) {
  Scalar s = scalarOf(ScalarKind::Derived, DType::Index);
  s.op = ScalarOp::Size;
  s.size_of = t;
  s.size_dim = dim;
  return push(scalars, s);
}

AxisId Fusion::addAxis(uint32_t number, IterType iter, ParallelType pt, ScalarId extent, ScalarId expanded) {
  Axis a;
  a.number = number;
  a.iter = iter;
  a.parallel = pt;
  a.extent = extent;
  a.expanded = expanded;
  axes.push_back(a);
  return static_cast<AxisId>(axes.size() - 1);
}

TensorId Fusion::addTensor(std::string_view n, DType dtype, MemoryType mem, std::vector<AxisId> logical,
                           MeshId mesh) {
  Tensor t;
  t.name = names.intern(n);
  t.dtype = dtype;
  t.memory = mem;
  t.mesh = mesh;
  t.logical = std::move(logical);
  auto id = static_cast<TensorId>(tensors.size());
  for (AxisId a : t.logical)
    if (a < axes.size()) axes[a].owner = id;
  tensors.push_back(std::move(t));
  return id;
}

ExprId Fusion::addExpr(OpKind op, std::vector<ValueRef> in, std::vector<TensorId> out, Attrs attrs) {
  Expr e;
  e.op = op;
  e.inputs = std::move(in);
  e.outputs = std::move(out);
  e.attrs = std::move(attrs);
  auto id = static_cast<ExprId>(exprs.size());
  for (TensorId t : e.outputs)
    if (t < tensors.size()) tensors[t].definition = id;
  exprs.push_back(std::move(e));
  return id;
}

MeshId Fusion::addMesh(std::vector<int64_t> shape, std::vector<int64_t> devices) {
  meshes.push_back(Mesh{std::move(shape), std::move(devices)});
  return static_cast<MeshId>(meshes.size() - 1);
}

void Fusion::indexNames() const {
  if (indexed_tensors_ == tensors.size() && indexed_scalars_ == scalars.size() &&
      tensor_by_name_.size() == names.size())
    return;
  tensor_by_name_.assign(names.size(), kNone);
  scalar_by_name_.assign(names.size(), kNone);
  // First declaration wins; the verifier reports duplicates.
  for (size_t i = tensors.size(); i-- > 0;)
    if (tensors[i].name != kNoName) tensor_by_name_[tensors[i].name] = static_cast<TensorId>(i);
  for (size_t i = scalars.size(); i-- > 0;)
    if (scalars[i].name != kNoName) scalar_by_name_[scalars[i].name] = static_cast<ScalarId>(i);
  indexed_tensors_ = tensors.size();
  indexed_scalars_ = scalars.size();
}

template <typename Id>
std::optional<Id> Fusion::findNamed(std::string_view n, const std::vector<Id>& by_name) const {
  NameId id = names.find(n);
  if (id == kNoName) return std::nullopt;
  indexNames();
  if (by_name[id] == kNone) return std::nullopt;
  return by_name[id];
}

std::optional<TensorId> Fusion::findTensor(std::string_view n) const { return findNamed(n, tensor_by_name_); }
std::optional<ScalarId> Fusion::findScalar(std::string_view n) const { return findNamed(n, scalar_by_name_); }

int64_t Fusion::tensorNumber(TensorId t) const {
  std::string_view n = tensorName(t);
  if (n.size() < 2 || n[0] != 'T') return -1;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(n.data() + 1, n.data() + n.size(), v);
  if (ec != std::errc() || p != n.data() + n.size()) return -1;
  return v;
}

bool Fusion::isInput(TensorId t) const {
  return std::find(inputs.begin(), inputs.end(), ValueRef::tensor(t)) != inputs.end();
}

bool Fusion::isOutput(TensorId t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}

std::span<const ExprId> Fusion::uses(TensorId t) const {
  if (use_begin_.size() != tensors.size() + 1) buildUses();
  FC_CHECK(t < tensors.size(), "uses() of a tensor that does not exist");
  return {use_list_.data() + use_begin_[t], use_list_.data() + use_begin_[t + 1]};
}

void Fusion::buildUses() const {
  // Counted, then filled: an expr that reads a tensor twice uses it once
  // (`last` holds the last expr that used each tensor).
  std::vector<ExprId> last;
  auto each = [&](auto&& fn) {
    last.assign(tensors.size(), kNone);
    for (ExprId e = 0; e < exprs.size(); ++e)
      for (const ValueRef& v : exprs[e].inputs)
        if (v.isTensor() && v.id < tensors.size() && last[v.id] != e) {
          last[v.id] = e;
          fn(v.id, e);
        }
  };
  use_begin_.assign(tensors.size() + 1, 0);
  each([&](TensorId t, ExprId) { ++use_begin_[t + 1]; });
  for (size_t t = 0; t < tensors.size(); ++t) use_begin_[t + 1] += use_begin_[t];
  use_list_.resize(use_begin_.back());
  std::vector<uint32_t> next(use_begin_.begin(), use_begin_.end() - 1);
  each([&](TensorId t, ExprId e) { use_list_[next[t]++] = e; });
}

size_t Fusion::nonReductionRank(TensorId t) const {
  size_t n = 0;
  for (AxisId a : tensors[t].logical)
    if (axes[a].iter != IterType::Reduction) ++n;
  return n;
}

AxisId Fusion::sizeAxis(const Scalar& sc) const {
  if (sc.size_of >= tensors.size() || sc.size_dim < 0) return kNone;
  int32_t d = sc.size_dim;
  for (AxisId a : tensors[sc.size_of].logical) {
    if (axes[a].iter == IterType::Reduction) continue;
    if (d-- == 0) return a;
  }
  return kNone;
}

bool holdsOpaqueOp(const Fusion& f) {
  for (const Expr& x : f.exprs)
    if (isOpaque(x.op)) return true;
  return false;
}

std::optional<int64_t> constIntOf(const Fusion& f, ScalarId s) {
  if (s >= f.scalars.size()) return std::nullopt;
  const Scalar& sc = f.scalars[s];
  if (sc.kind == ScalarKind::Constant && sc.value.kind == ConstValue::Kind::Int) return sc.value.i;
  return std::nullopt;
}

void copyReproMetadata(const Fusion& from, Fusion& to) {
  FC_CHECK(to.tensors.empty() && to.scalars.empty(), "copyReproMetadata starts an empty fusion");
  to.name = from.name;
  to.era = from.era;
  to.origin = from.origin;
  to.nvfuser = from.nvfuser;
  to.provenance = from.provenance;
  to.meshes = from.meshes;
  to.seed = from.seed;
  to.tolerance = from.tolerance;
  to.scalars = from.scalars;
  for (Scalar& s : to.scalars)
    if (s.name != kNoName) s.name = to.names.intern(from.names.str(s.name));
}

}  // namespace fc
