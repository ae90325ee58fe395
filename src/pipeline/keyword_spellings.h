// Which points of nvFuser's history ran a Python repro, by how it spells its keywords. nvFuser's
// frontends renamed keywords (`axes=` -> `dims=` of fd.ops.sum, ...); pybind rejects a keyword
// its binding does not name, so a script spelling the other form stops with a TypeError before
// its fusion is defined. A C++ test naming a class the C++ API removed (IrBuilder::create<Int>)
// does not compile after that. The importers record the dated forms a repro spells
// (ReproOrigin::keywords, ir/dated_spellings.h); each names the history switch it depends on
// (nvfuser_history.def has the changes that flip them, with their sources).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ir/dated_spellings.h"
#include "ir/fusion.h"
#include "pipeline/history.h"

namespace fc {

enum class Frontend : uint8_t;

// A dated spelling (ir/dated_spellings.h) with its switch and value resolved.
struct KeywordSpelling {
  const DatedSpelling* row = nullptr;
  nv::Switch sw{};
  uint8_t value = 0;
};
// Every row of datedSpellings(), resolved; a `when` that names no switch and value of the history
// is an internal error.
std::span<const KeywordSpelling> keywordSpellings();

// A keyword the repro spells that its frontend does not bind at a point.
struct SpellingConflict {
  const KeywordUse* use = nullptr;
  const KeywordSpelling* rule = nullptr;
  // The change that renamed it away (the spelling is too old), or the one that introduced it
  // (too new); never null.
  const nv::Change* change = nullptr;
  bool too_old = false;
};

// A keyword of `f`'s script that frontend `fe` does not bind at position `pos` (only a repro of
// that frontend, through it, is checked): of those bound too late, the one bound last, so that the
// point its change names binds them all; else, of those renamed away, the one renamed first.
std::optional<SpellingConflict> spellingConflict(const Fusion& f, Frontend fe, uint32_t pos);

// "fd.ops.sum's `axes=` (line 9)" and what the change did to it, for messages.
std::string spellingConflictText(const SpellingConflict& c);
// "fd.ops.sum's `axes=` (line 9)", "fd.ops.reshape(arg, original_shape, new_shape) (line 12)".
std::string keywordUseText(const KeywordUse& u);
// Whether the use is a C++ test's template argument or a C++ call's argument list (it does not
// compile), not a Python keyword or form (a TypeError).
bool isCppSpelling(const KeywordUse& u);

// The last point (a position on main) whose frontend binds every keyword the repro spells, when
// some spelling was renamed away: with the use and the change that ends the range.
struct SpellingBound {
  uint32_t last_pos = 0;
  const KeywordUse* use = nullptr;
  const nv::Change* change = nullptr;
};
std::optional<SpellingBound> lastPointSpelled(const Fusion& f, Frontend fe);

}  // namespace fc
