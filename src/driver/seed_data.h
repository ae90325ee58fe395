// The built-in seed repro (fixtures/seed/matmul_allreduce_bias.json),
// compiled into the library so that `fusecheck demo` needs no files.
#pragma once

#include <string_view>

namespace fc::driver {

std::string_view builtinSeedRepro();

}  // namespace fc::driver
