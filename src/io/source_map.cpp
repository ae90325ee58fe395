// Pointers into an imported fusion located in the user's text (see source_map.h).
#include "io/source_map.h"

#include <charconv>
#include <string_view>

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

LineCol positionOf(std::string_view pointer, const Fusion& f) {
  if (!f.source || pointer.size() < 2 || pointer[0] != '/') return {};
  const SourcePositions& p = *f.source;
  pointer.remove_prefix(1);
  size_t slash = pointer.find('/');
  std::string_view kind = pointer.substr(0, slash);
  std::string_view rest = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash + 1);
  size_t n = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  if (rest.empty() || ec != std::errc() || (end != rest.data() + rest.size() && *end != '/')) return {};
  auto ofValue = [&](const ValueRef& v) { return v.isTensor() ? at(p.tensors, v.id) : at(p.scalars, v.id); };
  if (kind == "tensors") return at(p.tensors, n);
  if (kind == "exprs") return at(p.exprs, n);
  if (kind == "scalars") return at(p.scalars, n);
  if (kind == "inputs") return n < f.inputs.size() ? ofValue(f.inputs[n]) : LineCol{};
  if (kind == "outputs") return n < f.outputs.size() ? at(p.tensors, f.outputs[n]) : LineCol{};
  return {};
}

bool fillSourcePositions(std::vector<Diagnostic>& diags, const Fusion& f) {
  if (!f.source) return false;
  bool any = false;
  auto fill = [&](Location& loc) {
    if (loc.line > 0 || loc.pointer.empty()) return;
    LineCol lc = positionOf(loc.pointer, f);
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
