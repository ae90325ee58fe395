// The repro writer: canonical JSON for a Fusion. Canonical means: fixed key
// order, defaults omitted, one axis / expr per line; load -> save -> load
// gives the same graph and a second save is byte-identical to the first.
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

std::string writeFusion(const Fusion& f);

}  // namespace fc
