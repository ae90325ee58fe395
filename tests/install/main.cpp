// Consumer of the installed fusecheck package: builds T1 = neg(T0) with the
// IR builders, verifies it, prints it nvFuser-style (T1 = -T0), writes it as a repro and
// reads that back (which links the reader's simdjson through the package).
// Prints the math and "round-trip: ok"; exit 1 on any failure.
#include <iostream>
#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/fusion.h"
#include "ir/printer.h"
#include "ir/verifier.h"

int main() {
  fc::Fusion f;
  f.name = "install_consumer";
  fc::ScalarId i0 = f.addSymbol("i0");
  fc::ScalarId i1 = f.addSymbol("i1");
  fc::AxisId a0 = f.addAxis(0, fc::IterType::Iteration, fc::ParallelType::Serial, i0);
  fc::AxisId a1 = f.addAxis(1, fc::IterType::Iteration, fc::ParallelType::Serial, i1);
  fc::TensorId t0 = f.addTensor("T0", fc::DType::Float, fc::MemoryType::Global, {a0, a1});
  fc::AxisId a2 = f.addAxis(2, fc::IterType::Iteration, fc::ParallelType::Serial, i0);
  fc::AxisId a3 = f.addAxis(3, fc::IterType::Iteration, fc::ParallelType::Serial, i1);
  fc::TensorId t1 = f.addTensor("T1", fc::DType::Float, fc::MemoryType::Global, {a2, a3});
  f.inputs.push_back(fc::ValueRef::tensor(t0));
  f.addExpr(fc::OpKind::Neg, {fc::ValueRef::tensor(t0)}, {t1});
  f.outputs.push_back(t1);
  f.rebuildUses();

  fc::DiagnosticSink sink;
  if (!fc::verifyFusion(f, sink)) {
    std::cerr << "consumer: the built fusion does not verify (" << sink.errorCount() << " errors)\n";
    return 1;
  }
  std::cout << fc::printFusionMath(f, fc::PrintStyle::Y2024);

  std::string text = fc::writeFusion(f);
  fc::SourceText source("consumer.json", text);
  std::optional<fc::Fusion> back = fc::readFusion(source, sink);
  if (!back || sink.hasErrors()) {
    std::cerr << "consumer: reading back the written repro failed\n";
    return 1;
  }
  if (fc::writeFusion(*back) != text) {
    std::cerr << "consumer: second save differs from the first\n";
    return 1;
  }
  std::cout << "round-trip: ok (" << back->tensors.size() << " tensors, " << back->exprs.size()
            << " exprs)\n";
  return 0;
}
