// Profiles for tests: a point and, optionally, a path. `eraProfile` keeps
// what the first version of the model called an era: 2024-06 / 2024-07 on a
// fusion with meshes is the C++ MultiDeviceExecutor with a
// FusionExecutorCache per segment (where #2481 was reached), otherwise the
// point's default path; head is the repro's own path (C++
// FusionExecutorCache where that path is gone at head).
#pragma once

#include <stdexcept>
#include <string>
#include <variant>

#include "passes/segment.h"
#include "pipeline/profile.h"

namespace fc::test {

inline Profile profileFor(const Fusion& f, const std::string& point, const std::string& frontend = "",
                          const std::string& executor = "") {
  auto r = resolveProfile(ProfileRequest{point, frontend, executor}, f);
  if (auto* e = std::get_if<ProfileError>(&r)) throw std::runtime_error("test profile: " + e->message);
  return std::get<Profile>(std::move(r));
}

inline Profile eraProfile(const Fusion& f, const std::string& era) {
  if (era != "head" && isMultiDevice(f)) return profileFor(f, era, "cpp", "mde-fec");
  // The repro's own path, or C++ FusionExecutorCache where that path is gone.
  auto r = resolveProfile(ProfileRequest{era, "", ""}, f);
  if (auto* p = std::get_if<Profile>(&r)) return std::move(*p);
  return profileFor(f, era, "cpp", "fec");
}

}  // namespace fc::test
