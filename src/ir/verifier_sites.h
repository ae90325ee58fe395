// Where an axis object or a scalar is written in the repro, kept as a small
// record and made a place (diag/place.h) only when a diagnostic needs
// one. An axis object is where it is defined: the first
// slot of its owning tensor that names it (forEachAxisSlot's order). A
// scalar is where it first appears: its declaration, an axis field, a
// transform factor or an expr attribute; an operand of a derived scalar
// appears where the derived scalar does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "diag/place.h"
#include "ir/fusion.h"
#include "ir/verifier_report.h"

namespace fc::verify {

struct VerifyState;

// An axis object's place: a domain position or a transform slot of a tensor.
struct AxisSite {
  enum Field : uint8_t { Root, Logical, Allocation, Loop, TrOuter, TrInner, TrOut, TrIn };
  TensorId t = kNone;
  Field field = Root;
  uint32_t index = 0;  // domain position, or transform index
};

// Where a scalar first appears.
struct ScalarSite {
  enum Kind : uint8_t {
    None,
    Decl,        // scalars a
    DeclValue,   // scalars a -> value
    AxisExtent,  // <axis a> -> extent
    AxisExpanded,
    Factor,     // tensors a -> transforms b -> factor
    ExprInput,  // exprs a -> inputs b
    ExprShape,
    ExprPad,
    ExprRangeStart,
    ExprRangeStop,
    ExprRangeStep,
    ExprValue,  // exprs a -> value
    ExprStart,
    ExprStep,
  };
  Kind kind = None;
  uint32_t a = 0, b = 0;
};

// Calls visit(axis, field, index) for every axis slot of `tv`: root,
// logical, transform outputs, allocation, loop, then transform inputs.
// The first slot naming an axis is where its object is (in the canonical
// form), so this order decides an axis's site.
template <typename Visit>
void forEachAxisSlot(const Tensor& tv, Visit&& visit) {
  // One side of every transform: a split has one input (in) and two
  // outputs (outer, inner), a merge two inputs (outer, inner) and one
  // output (out).
  auto transformSide = [&](bool outputs) {
    for (size_t k = 0; k < tv.transforms.size(); ++k) {
      const AxisTransform& x = tv.transforms[k];
      const AxisId first = outputs ? x.out : x.in, second = outputs ? x.out2 : x.in2;
      if ((x.kind == AxisTransform::Kind::Split) == outputs) {
        visit(first, AxisSite::TrOuter, k);
        visit(second, AxisSite::TrInner, k);
      } else {
        visit(first, outputs ? AxisSite::TrOut : AxisSite::TrIn, k);
      }
    }
  };
  for (size_t j = 0; j < tv.root.size(); ++j) visit(tv.root[j], AxisSite::Root, j);
  for (size_t j = 0; j < tv.logical.size(); ++j) visit(tv.logical[j], AxisSite::Logical, j);
  transformSide(true);
  for (size_t j = 0; j < tv.allocation.size(); ++j) visit(tv.allocation[j], AxisSite::Allocation, j);
  for (size_t j = 0; j < tv.loop.size(); ++j) visit(tv.loop[j], AxisSite::Loop, j);
  // Transform inputs must be axes of this tensor as well.
  transformSide(false);
}

// The first slot of tensor t that names axis a.
AxisSite siteIn(const Fusion& f, TensorId t, AxisId a);
Place sitePlace(const AxisSite& s);
// The place of axis a's object, in its owner (st.axis_owner).
Place axisPlace(const VerifyState& st, AxisId a);
// Where scalar s first appears; empty for a speculative reporter, whose
// findings are dropped (and which may run while another thread claims the
// axes the sites are derived from).
Place scalarPlace(VerifyState& st, ScalarId s, const Reporter& r);

}  // namespace fc::verify
