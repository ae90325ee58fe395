// Where an imported repro defined each tensor, scalar and expr of the fusion it became. Importers
// record byte offsets into the user's file (the SourceText the import read, through any paste
// repair) in a SourceMap; the import turns them into the fusion's SourcePositions (line:col, kept
// in the JSON that `import -o` writes). The analyses report places in the fusion (tensor 3's
// logical axis 0, expr 5, input 1); for a fusion with positions those are turned into the line:col
// of the definition in the user's text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"

namespace fc {

struct SourceMap {
  static constexpr uint32_t kUnknown = UINT32_MAX;
  std::vector<uint32_t> tensors, scalars, exprs;  // by id; kUnknown where no text defined it

  bool empty() const { return tensors.empty() && scalars.empty() && exprs.empty(); }
};

// The offsets of `map` as line:col in `source`, named by its path.
SourcePositions positionsOf(const SourceMap& map, const SourceText& source);

// The position recorded for the place's first step (tensor N, expr N, scalar N, input N, output
// N) in `f`'s source positions; {0, 0} where none is.
LineCol positionOf(const Place& place, const Fusion& f);
// The same for the place a pointer spells ("/tensors/3/logical/0").
LineCol positionOf(std::string_view pointer, const Fusion& f);

// Gives every diagnostic (and note) its pointer (renderPlaces), then fills file and line:col of
// those that have a place in `f` and no line yet, from the definition `f.source` records for it.
// Returns whether any location was filled.
bool fillSourcePositions(std::vector<Diagnostic>& diags, const Fusion& f);

}  // namespace fc
