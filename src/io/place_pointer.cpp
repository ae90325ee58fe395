#include "io/place_pointer.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "diag/render.h"
#include "io/json_locate.h"

namespace fc {
namespace {

// By PlaceField, in its order.
constexpr std::array<const char*, kPlaceFieldCount> kNames = {
    "tensors", "exprs",        "scalars",    "inputs",   "outputs", "concrete_inputs",
    "meshes",  "segmentation", "runs",       "root",     "logical", "allocation",
    "loop",    "contiguity",   "transforms", "outer",    "inner",   "out",
    "in",      "factor",       "extent",     "expanded", "id",      "dtype",
    "mesh",    "dims",         "dim",        "flags",    "shape",   "pad",
    "ranges",  "start",        "stop",       "step",     "value",   "name",
    "input",   "range",        "fill",       "strides",  "devices", "segments",
    "forward", "segment",      "symbol",
};
static_assert(std::string_view(kNames[static_cast<size_t>(PlaceField::Runs)]) == "runs");
static_assert(std::string_view(kNames[static_cast<size_t>(PlaceField::Mesh)]) == "mesh");
static_assert(std::string_view(kNames[static_cast<size_t>(PlaceField::Value)]) == "value");
static_assert(std::string_view(kNames[kPlaceFieldCount - 1]) == "symbol");

bool unrendered(const Location& loc) { return loc.pointer.empty() && !loc.place.empty(); }

void render(Location& loc) {
  if (unrendered(loc)) loc.pointer = jsonPointer(loc.place);
}

}  // namespace

const char* placeFieldName(PlaceField f) { return kNames[static_cast<size_t>(f)]; }

std::string jsonPointer(const Place& p) {
  std::string out;
  for (size_t i = 0; i < p.depth(); ++i) {
    const Place::Step& s = p.step(i);
    out += '/';
    out += placeFieldName(s.field);
    if (s.index != Place::kNoIndex) {
      out += '/';
      out += std::to_string(s.index);
    }
  }
  return out;
}

std::optional<Place> parsePlace(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (!splitPointer(pointer, tokens)) return std::nullopt;
  Place p;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto* it = std::find(kNames.begin(), kNames.end(), tokens[i]);
    if (it == kNames.end() || p.depth() == Place::kMaxDepth) return std::nullopt;
    const auto field = static_cast<PlaceField>(it - kNames.begin());
    size_t index = 0;
    if (i + 1 < tokens.size() && parsePointerIndex(tokens[i + 1], index) && index < Place::kNoIndex) {
      p = p.at(field, index);
      ++i;
    } else {
      p = p.key(field);
    }
  }
  return p;
}

void renderPlaces(std::vector<Diagnostic>& diags) {
  for (Diagnostic& d : diags) {
    render(d.loc);
    for (Note& n : d.notes) render(n.loc);
  }
}

bool placesToRender(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags) {
    if (unrendered(d.loc)) return true;
    for (const Note& n : d.notes)
      if (unrendered(n.loc)) return true;
  }
  return false;
}

const std::vector<Diagnostic>& withPointers(const std::vector<Diagnostic>& diags,
                                            std::vector<Diagnostic>& storage) {
  if (!placesToRender(diags)) return diags;
  storage = diags;
  renderPlaces(storage);
  return storage;
}

std::string spelledJson(const std::vector<Diagnostic>& diags) {
  std::vector<Diagnostic> storage;
  return renderJson(withPointers(diags, storage));
}

}  // namespace fc
