// The executor a frontend runs a fusion through at a point of nvFuser's
// history, when its caller does not choose one.
#pragma once

#include "pipeline/history.h"
#include "pipeline/profile.h"

namespace fc {

Executor defaultExecutor(Frontend fe, const nv::State& s, bool multi);

}  // namespace fc
