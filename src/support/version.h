// fusecheck's version, one scheme for `fusecheck --version`, SARIF's
// tool.driver.version and the .deb package: the release (the CMake project
// version) followed by where in git the build comes from, as
// `RELEASE+gitN.HASH[.dirty]` (N commits since the release's tag `vRELEASE`,
// or since the first commit when it has no tag yet; HASH abbreviated). A
// build at the tag itself is `RELEASE`; a build outside git is `RELEASE`.
#pragma once

#include <string>
#include <string_view>

namespace fc {

// The release alone, e.g. "0.1.0".
std::string_view releaseVersion();
// The full version; the release until setBuildVersion is called (the CLI
// sets it from the description generated at build time).
std::string_view buildVersion();
void setBuildVersion(std::string version);

}  // namespace fc
