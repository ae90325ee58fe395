// Keyword spellings (and forms of an argument list) that date a Python repro: nvFuser's frontends
// renamed some keywords, and pybind rejects a keyword its binding does not name, so a script that
// spells one form ran only on the points whose frontend bound it. Likewise a C++ test that names a
// class nvFuser's C++ API later removed compiles only before that. The importers record these uses
// (ReproOrigin::keywords); the pipeline reads `when`, a switch of nvFuser's history and its value
// (pipeline/nvfuser_history.def, whose changes cite the bindings), to bound the script's points
// (pipeline/keyword_spellings.h).
#pragma once

#include <span>
#include <string_view>

namespace fc {

struct DatedSpelling {
  std::string_view origin_kind;  // "python-legacy" / "python-direct" / "cpp-test"
  std::string_view calls;        // comma-separated: "fd.ops.sum,fd.ops.prod"
  // "axes"; in parentheses, a form of the whole argument list; in angle brackets, a C++ call's
  // template argument
  std::string_view keyword;
  std::string_view when;  // "reduction-dims-keyword=Axes": the switch key and its value
};

std::span<const DatedSpelling> datedSpellings();

// Whether `keyword` of `call` in a script of `origin_kind` is in the table: the importer records it.
bool datesScript(std::string_view origin_kind, std::string_view call, std::string_view keyword);

// Whether `call` is one of the comma-separated `calls`.
bool callListHas(std::string_view calls, std::string_view call);

}  // namespace fc
