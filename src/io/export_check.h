// What the exporters cannot say: nvFuser's Python `fd.define_tensor` and the
// C++ `TensorViewBuilder` define a fusion input from its sizes, so a
// Reduction axis that a fusion input carries (a segment written alone, a
// reduced repro) would be dropped and the exported repro would no longer
// reproduce the original. Commands that export check first and refuse.
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "ir/fusion.h"

namespace fc {

// Whether every fusion input can be exported as it is: true when no input
// carries a Reduction axis.
bool exportKeepsInputs(const Fusion& f);

// Reports FC0610, located on the axis, for each Reduction axis of a fusion
// input (`form` names the export: "nvFuser's Python"); returns
// exportKeepsInputs(f).
bool checkExportKeepsInputs(const Fusion& f, const std::string& file, const std::string& form,
                            DiagnosticSink& sink);

}  // namespace fc
