// Pointers into an imported fusion located in the user's text (see source_map.h).
#include "io/source_map.h"

#include <optional>
#include <string_view>

#include "io/place_pointer.h"

namespace fc {
namespace {

LineCol at(const std::vector<LineCol>& v, size_t i) { return i < v.size() ? v[i] : LineCol{}; }

}  // namespace

SourcePositions positionsOf(const SourceMap& map, const SourceText& source) {
  SourcePositions p;
  p.file = source.path();
  auto convert = [&](const std::vector<uint32_t>& offsets, std::vector<LineCol>& out) {
    size_t n = offsets.size();
    while (n > 0 && (offsets[n - 1] == SourceMap::kUnknown || offsets[n - 1] > source.text().size())) --n;
    out.resize(n);
    for (size_t i = 0; i < n; ++i)
      if (offsets[i] != SourceMap::kUnknown && offsets[i] <= source.text().size())
        out[i] = source.lineCol(offsets[i]);
  };
  convert(map.tensors, p.tensors);
  convert(map.scalars, p.scalars);
  convert(map.exprs, p.exprs);
  return p;
}

LineCol positionOf(const Place& place, const Fusion& f) {
  if (!f.source || place.empty()) return {};
  const SourcePositions& p = *f.source;
  const Place::Step& first = place.step(0);
  const size_t n = first.index;
  if (first.index == Place::kNoIndex) return {};
  auto ofValue = [&](const ValueRef& v) { return v.isTensor() ? at(p.tensors, v.id) : at(p.scalars, v.id); };
  switch (first.field) {
    case PlaceField::Tensors: return at(p.tensors, n);
    case PlaceField::Exprs: return at(p.exprs, n);
    case PlaceField::Scalars: return at(p.scalars, n);
    case PlaceField::Inputs: return n < f.inputs.size() ? ofValue(f.inputs[n]) : LineCol{};
    case PlaceField::Outputs: return n < f.outputs.size() ? at(p.tensors, f.outputs[n]) : LineCol{};
    default: return {};
  }
}

LineCol positionOf(std::string_view pointer, const Fusion& f) {
  std::optional<Place> place = parsePlace(pointer);
  return place ? positionOf(*place, f) : LineCol{};
}

bool fillSourcePositions(std::vector<Diagnostic>& diags, const Fusion& f) {
  renderPlaces(diags);
  if (!f.source) return false;
  bool any = false;
  auto fill = [&](Location& loc) {
    if (loc.line > 0) return;
    LineCol lc = !loc.place.empty() ? positionOf(loc.place, f) : positionOf(loc.pointer, f);
    if (lc.line <= 0) return;
    loc.line = lc.line;
    loc.col = lc.col;
    loc.file = f.source->file;
    any = true;
  };
  for (Diagnostic& d : diags) {
    fill(d.loc);
    for (Note& n : d.notes) fill(n.loc);
  }
  return any;
}

}  // namespace fc
