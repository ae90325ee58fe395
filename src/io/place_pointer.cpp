#include "io/place_pointer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "diag/render.h"

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
  Place p;
  if (pointer.empty()) return p;
  if (pointer.front() != '/') return std::nullopt;
  pointer.remove_prefix(1);
  std::vector<std::string_view> tokens;
  while (true) {
    size_t slash = pointer.find('/');
    tokens.push_back(pointer.substr(0, slash));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto* it =
        std::find_if(kNames.begin(), kNames.end(), [&](const char* n) { return tokens[i] == n; });
    if (it == kNames.end() || p.depth() == Place::kMaxDepth) return std::nullopt;
    auto field = static_cast<PlaceField>(it - kNames.begin());
    uint32_t index = 0;
    const std::string_view next = i + 1 < tokens.size() ? tokens[i + 1] : std::string_view();
    auto [end, ec] = std::from_chars(next.data(), next.data() + next.size(), index);
    if (!next.empty() && ec == std::errc() && end == next.data() + next.size() && index != Place::kNoIndex) {
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
