#include "io/pointer_target.h"

#include <optional>

#include "io/place_pointer.h"
#include "ir/live_exprs.h"

namespace fc {
namespace {

const std::vector<AxisId>* domain(const Tensor& t, PlaceField field) {
  switch (field) {
    case PlaceField::Root: return &t.root;
    case PlaceField::Logical: return &t.logical;
    case PlaceField::Allocation: return &t.allocation;
    case PlaceField::Loop: return &t.loop;
    default: return nullptr;
  }
}

}  // namespace

PointerTarget resolvePlace(const Fusion& f, const Place& place) {
  PointerTarget out;
  if (place.empty()) return out;
  const Place::Step& first = place.step(0);
  const uint32_t i = first.index;
  if (first.field == PlaceField::Tensors && i < f.tensors.size()) {
    out.tensor = static_cast<TensorId>(i);
    if (place.depth() >= 2 && place.step(1).index != Place::kNoIndex)
      if (const std::vector<AxisId>* dom = domain(f.tensors[i], place.step(1).field);
          dom && place.step(1).index < dom->size())
        out.axis = (*dom)[place.step(1).index];
  } else if (first.field == PlaceField::Exprs) {
    if (auto e = exprOfUserId(f, i)) out.expr = *e;
  } else if (first.field == PlaceField::Segmentation && place.depth() >= 2 &&
             place.step(1).field == PlaceField::Segments && place.step(1).index != Place::kNoIndex) {
    out.segment = static_cast<int>(place.step(1).index);
  }
  return out;
}

PointerTarget resolvePointer(const Fusion& f, std::string_view pointer) {
  std::optional<Place> place = parsePlace(pointer);
  return place ? resolvePlace(f, *place) : PointerTarget{};
}

PointerTarget resolveLocation(const Fusion& f, const Location& loc) {
  return loc.place.empty() ? resolvePointer(f, loc.pointer) : resolvePlace(f, loc.place);
}

}  // namespace fc
