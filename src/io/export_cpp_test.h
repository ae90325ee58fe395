// Exporter to a C++ GoogleTest body in the style of nvFuser's own tests (tests/cpp/*.cpp):
// `TEST_F(NVFuserTest, ...)` (or `MultiDeviceTest` when tensors carry meshes) building the
// fusion with the C++ API (TensorViewBuilder inputs with contiguity / expanded dims, arith ops
// such as castOp, broadcast, sum, matmul; setDeviceMesh, outer splits and DID parallelization),
// then ATen inputs from the repro's concrete inputs, FusionExecutorCache::runFusionWithInputs
// and testValidate. The seed's own reproducer was such a test.
//
// Fails (FC0602) only where the C++ layout cannot name a value (a symbol that is neither a
// scalar input nor an extent of an input tensor). Complexity: linear in the fusion.
#pragma once

#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

std::optional<std::string> exportCppTest(const Fusion& f, DiagnosticSink& sink);

}  // namespace fc
