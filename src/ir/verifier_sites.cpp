#include "ir/verifier_sites.h"

#include <mutex>
#include <vector>

#include "ir/verifier_state.h"
#include "ir/verifier_text.h"

namespace fc::verify {
namespace {

// Fills st.scalar_site: where each scalar first appears.
void seedScalarSites(VerifyState& st) {
  const Fusion& f = st.f;
  st.scalar_site.assign(f.scalars.size(), ScalarSite{});
  std::vector<ScalarId> work;
  using K = ScalarSite::Kind;
  auto seed = [&](ScalarId s, K kind, size_t a, size_t b = 0) {
    if (s == kNone || s >= f.scalars.size() || st.scalar_site[s].kind != ScalarSite::None) return;
    st.scalar_site[s] = ScalarSite{kind, static_cast<uint32_t>(a), static_cast<uint32_t>(b)};
    work.push_back(s);
  };
  for (ScalarId s = 0; s < f.scalars.size(); ++s)
    if (f.scalars[s].decl != kNone) seed(s, K::Decl, f.scalars[s].decl);
  for (AxisId a = 0; a < f.axes.size(); ++a) {
    if (st.axis_owner[a] == kNone) continue;
    seed(f.axes[a].extent, K::AxisExtent, a);
    seed(f.axes[a].expanded, K::AxisExpanded, a);
  }
  for (TensorId t = 0; t < f.tensors.size(); ++t)
    for (size_t k = 0; k < f.tensors[t].transforms.size(); ++k)
      seed(f.tensors[t].transforms[k].factor, K::Factor, t, k);
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    const Expr& x = f.exprs[e];
    for (size_t k = 0; k < x.inputs.size(); ++k)
      if (x.inputs[k].isScalar()) seed(x.inputs[k].id, K::ExprInput, e, k);
    for (size_t k = 0; k < x.attrs.shape.size(); ++k) seed(x.attrs.shape[k], K::ExprShape, e, k);
    for (size_t k = 0; k < x.attrs.pad.size(); ++k) seed(x.attrs.pad[k], K::ExprPad, e, k);
    for (size_t k = 0; k < x.attrs.ranges.size(); ++k) {
      seed(x.attrs.ranges[k].start, K::ExprRangeStart, e, k);
      seed(x.attrs.ranges[k].stop, K::ExprRangeStop, e, k);
      seed(x.attrs.ranges[k].step, K::ExprRangeStep, e, k);
    }
    seed(x.attrs.value, K::ExprValue, e);
    seed(x.attrs.start, K::ExprStart, e);
    seed(x.attrs.step, K::ExprStep, e);
  }
  // Operands of a derived scalar appear where the derived scalar does
  // (inside the same expression string), unless declared themselves. A
  // declared scalar's site is its declaration, so its operands are in
  // that declaration's "value".
  while (!work.empty()) {
    ScalarId s = work.back();
    work.pop_back();
    const Scalar& sc = f.scalars[s];
    if (sc.kind != ScalarKind::Derived) continue;
    ScalarSite site = st.scalar_site[s];
    if (sc.decl != kNone) site = ScalarSite{K::DeclValue, sc.decl, 0};
    seed(sc.lhs, site.kind, site.a, site.b);
    if (sc.op != ScalarOp::Neg) seed(sc.rhs, site.kind, site.a, site.b);
  }
}

}  // namespace

AxisSite siteIn(const Fusion& f, TensorId t, AxisId a) {
  AxisSite site;
  bool found = false;
  forEachAxisSlot(f.tensors[t], [&](AxisId x, AxisSite::Field field, size_t index) {
    if (found || x != a) return;
    site = AxisSite{t, field, static_cast<uint32_t>(index)};
    found = true;
  });
  return site;
}

Place sitePlace(const AxisSite& s) {
  if (s.t == kNone) return {};
  // By AxisSite::Field: a domain position (root 2), or a slot of transform
  // <index> (transforms 1 -> outer).
  static constexpr PlaceField kDomain[] = {PlaceField::Root, PlaceField::Logical, PlaceField::Allocation,
                                           PlaceField::Loop};
  static constexpr PlaceField kSlot[] = {PlaceField::Outer, PlaceField::Inner, PlaceField::Out,
                                         PlaceField::In};
  static_assert(AxisSite::Loop == 3 && AxisSite::TrOuter == 4 && AxisSite::TrIn == 7);
  if (s.field < AxisSite::TrOuter) return tp(s.t).at(kDomain[s.field], s.index);
  return tp(s.t).at(PlaceField::Transforms, s.index).key(kSlot[s.field - AxisSite::TrOuter]);
}

Place axisPlace(const VerifyState& st, AxisId a) {
  if (a >= st.axis_owner.size() || st.axis_owner[a] == kNone) return {};
  return sitePlace(siteIn(st.f, st.axis_owner[a], a));
}

Place scalarPlace(VerifyState& st, ScalarId id, const Reporter& r) {
  if (r.speculative()) return {};
  std::call_once(st.sites_seeded, [&st] { seedScalarSites(st); });
  const ScalarSite& s = st.scalar_site[id];
  using F = PlaceField;
  switch (s.kind) {
    case ScalarSite::None: return {};
    case ScalarSite::Decl: return Place::scalar(s.a);
    case ScalarSite::DeclValue: return Place::scalar(s.a).key(F::Value);
    case ScalarSite::AxisExtent: return axisPlace(st, s.a).key(F::Extent);
    case ScalarSite::AxisExpanded: return axisPlace(st, s.a).key(F::Expanded);
    case ScalarSite::Factor: return tp(s.a).at(F::Transforms, s.b).key(F::Factor);
    case ScalarSite::ExprInput: return ep(s.a).at(F::Inputs, s.b);
    case ScalarSite::ExprShape: return ep(s.a).at(F::Shape, s.b);
    case ScalarSite::ExprPad: return ep(s.a).at(F::Pad, s.b);
    case ScalarSite::ExprRangeStart: return ep(s.a).at(F::Ranges, s.b).key(F::Start);
    case ScalarSite::ExprRangeStop: return ep(s.a).at(F::Ranges, s.b).key(F::Stop);
    case ScalarSite::ExprRangeStep: return ep(s.a).at(F::Ranges, s.b).key(F::Step);
    case ScalarSite::ExprValue: return ep(s.a).key(F::Value);
    case ScalarSite::ExprStart: return ep(s.a).key(F::Start);
    case ScalarSite::ExprStep: return ep(s.a).key(F::Step);
  }
  return {};
}

}  // namespace fc::verify
