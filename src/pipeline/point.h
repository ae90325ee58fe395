// A point in nvFuser's history, as `--nvfuser` names it: a date, a commit
// of main (7 or more hex digits), a version string as repro headers print it
// (`0.2.6`, `0.2.14+git7f0bd0d`), or an alias (`head`; `2024-06` and
// `2024-07`, the names of the first version of this model). Resolved against
// main's first-parent history (history.h); anything else is an error with
// suggestions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fc::nv {

struct Point {
  uint32_t pos = 0;                // position on main's first-parent history
  std::string commit;              // full hash
  std::string date;                // its UTC date
  std::string spec;                // what was asked for
  std::string how;                 // how spec became this commit, one clause
  std::vector<std::string> notes;  // what the user should know (a version's range, ...)
  std::string shortCommit() const { return commit.substr(0, 9); }
  // "2024-06-30 (4e7365d18)" / "head (81c4b22fd, 2026-04-03)"
  std::string label() const;
};

struct PointError {
  std::string message;
  std::vector<std::string> suggestions;  // "did you mean" candidates
};

std::variant<Point, PointError> resolvePoint(std::string_view spec);

// The points the old era names stand for: `2024-06`, `2024-07`, `head`.
inline constexpr std::string_view kPointAliases[] = {"2024-06", "2024-07", "head"};

// The newest commit of the history.
Point headPoint();

}  // namespace fc::nv
