// What a frontend binds before the executor runs: the legacy Python
// frontend's setupSchedule binds the whole fusion with each rank's local
// inputs before schedule() sets meshes and DID axes
// (DynamicTransform::concretizeFusion at
// csrc/python_frontend/fusion_definition.cpp:196 @ 1b81f0824; a constant
// extent meets the local size at csrc/expr_evaluator.cpp:95 @ 1b81f0824).
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// Reports every constant extent of a sharded input axis that meets a
// different local size in that binding (nvFuser's BindConstant check).
// True when one was found: nvFuser stops there, before the executor.
bool preScheduleBinding(const Fusion& f, const std::string& file, DiagnosticSink& sink);

}  // namespace fc
