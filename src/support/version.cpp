#include "support/version.h"

#ifndef FC_RELEASE_VERSION
#error "FC_RELEASE_VERSION is set by src/CMakeLists.txt"
#endif

namespace fc {
namespace {

std::string& storedBuildVersion() {
  static std::string v = FC_RELEASE_VERSION;
  return v;
}

}  // namespace

std::string_view releaseVersion() { return FC_RELEASE_VERSION; }
std::string_view buildVersion() { return storedBuildVersion(); }
void setBuildVersion(std::string version) { storedBuildVersion() = std::move(version); }

}  // namespace fc
