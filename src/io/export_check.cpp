#include "io/export_check.h"

#include "ir/printer.h"

namespace fc {

bool exportKeepsInputs(const Fusion& f) {
  for (const ValueRef& v : f.inputs)
    if (v.isTensor() && v.id < f.tensors.size())
      for (AxisId a : f.tensors[v.id].logical)
        if (f.axes[a].iter == IterType::Reduction) return false;
  return true;
}

bool checkExportKeepsInputs(const Fusion& f, const std::string& file, const std::string& form,
                            DiagnosticSink& sink) {
  bool ok = true;
  for (const ValueRef& v : f.inputs) {
    if (!v.isTensor() || v.id >= f.tensors.size()) continue;
    const std::vector<AxisId>& logical = f.tensors[v.id].logical;
    for (size_t k = 0; k < logical.size(); ++k) {
      if (f.axes[logical[k]].iter != IterType::Reduction) continue;
      ok = false;
      std::string t(f.tensorName(v.id));
      Location loc{file, JsonPointer().key("tensors").index(v.id).key("logical").index(k).str(), 0, 0};
      sink.error(DiagCode::ExportDropsAxis,
                 "fusion input " + t + " carries Reduction axis " + axisToString(f, logical[k]) + ", which " +
                     form + " cannot define: the export would drop it",
                 loc)
          .note("the exported repro would define " + t + " without it and no longer reproduce this one (a " +
                "segment input that keeps its Reduction axes is what nvFuser 2024-06 fails on)")
          .note("export the complete fusion, where " + t +
                "'s Reduction axis is made by the op that produces it; the JSON repro keeps it");
    }
  }
  return ok;
}

}  // namespace fc
