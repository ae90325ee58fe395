// Importer for nvFuser's C++ gtest repros, the usual form of multi-device reports: a
// `TEST_F(Suite, Name) { ... }` body, or its statements pasted without the frame (also as the new
// side of a diff). The reader runs the builder subset nvFuser's tests use (src/io/cpp/):
// makeSymbolicTensor, makeContigTensor, makeConcreteTensor, makeContigConcreteTensor,
// TensorViewBuilder().ndims().shape().contiguity().dtype().build(), fusion->addInput / addOutput,
// the ops of csrc/ops/*.h by their C++ names (ops.def), tensor_sizes, IrBuilder::create<Val>,
// setDeviceMesh with DeviceMesh({...}) or DeviceMesh::createForNumDevices(n),
// axis(i)->parallelize(ParallelType::DIDx), split / outer_split / merge / reorder of the loop
// domain, at::randn inputs (with shardTensor) passed to runFusionWithInputs, and the executor the
// test runs (FusionExecutorCache, MultiDeviceExecutor with its MultiDeviceExecutorParams), recorded
// as the repro's origin. The test's device count is taken as 2.
//
// Statements that do not build the fusion (validation, EXPECT_* / ASSERT_*, prints, scheduling
// passes) are skipped with a note (FC0604); a value built by something else that reaches the
// fusion, or an unknown function called on tensors of the fusion, is one located error naming the
// construct.
//
// Complexity: linear in the text, times the iterations of the loops it runs (at most 4096 each).
#pragma once

#include <optional>

#include "diag/diagnostic.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc {

// `map`, when given, is filled with where each tensor and expr was built in the user's file.
std::optional<Fusion> importCppTest(const MappedText& text, DiagnosticSink& sink, SourceMap* map = nullptr);

}  // namespace fc
