// The committed lists nvfuser_commits.tsv and nvfuser_versions.tsv, compiled
// in (history_data.cpp.in, filled by CMake).
#pragma once

#include <string_view>

namespace fc::nv {

std::string_view commitsTsv();
std::string_view versionsTsv();

}  // namespace fc::nv
