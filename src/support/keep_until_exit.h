// Handing large objects to the process for the rest of its life.
//
// A CLI command that has printed its answer would otherwise spend its last
// moments freeing the IR block by block: on a million-expr repro that is
// millions of free() calls for memory the exit returns at once (compilers do
// the same; clang's -disable-free). The CLI turns this on; a library caller
// (tests, embedders) leaves it off and keepUntilExit destroys as usual.
// Kept objects stay reachable from a static root, so leak checkers do not
// report them.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace fc {

namespace detail {
inline bool& keepUntilExitEnabled() {
  static bool on = false;
  return on;
}
inline std::vector<std::shared_ptr<void>>& keptObjects() {
  static auto* kept = new std::vector<std::shared_ptr<void>>();  // never destroyed, on purpose
  return *kept;
}
}  // namespace detail

inline void setKeepUntilExit(bool on) { detail::keepUntilExitEnabled() = on; }

// Moves `v` out of the caller into storage that is never freed when enabled;
// otherwise does nothing (the caller's object is destroyed as usual).
template <class T>
void keepUntilExit(T& v) {
  if (!detail::keepUntilExitEnabled()) return;
  detail::keptObjects().push_back(std::make_shared<T>(std::move(v)));
}

}  // namespace fc
