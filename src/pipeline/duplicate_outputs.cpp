#include "pipeline/duplicate_outputs.h"

#include <unordered_map>

#include "pipeline/history.h"

namespace fc {

// nvFuser before #1310: the single group of an unsegmented fusion keeps fusion->outputs(), an
// output added twice included (csrc/fusion_segmenter.cpp:296 @ 831821f3ae20), while
// SegmentedFusion::makeFusion adds getAllOutputs(sg), which holds each value once (:1459 there,
// :1557 @ 4b5243a9dea3); the runtime then compares the two counts. A segmented fusion's groups
// list each output once, so only an unsegmented one fails.
bool duplicateOutputFails(const Fusion& f, const SegmentedFusion& seg, const Profile& p,
                          const std::string& file, DiagnosticSink& sink) {
  if (p.executor != Executor::Fec || p.state.get<nv::DuplicateOutputs>() != nv::DuplicateOutputs::Dropped)
    return false;
  if (seg.segments.size() != 1) return false;
  std::unordered_map<TensorId, size_t> first;
  for (size_t k = 0; k < f.outputs.size(); ++k) {
    const TensorId t = f.outputs[k];
    auto [it, fresh] = first.emplace(t, k);
    if (fresh) continue;
    auto& d =
        sink.error(DiagCode::DuplicateOutput,
                   std::string(f.tensorName(t)) + " is added as a fusion output twice (outputs " +
                       std::to_string(it->second) + " and " + std::to_string(k) +
                       "): the kernel compiled for the unsegmented fusion has one output fewer than its "
                       "group lists, and FusionExecutorCache's output count check fails",
                   Location::at(file, Place::tensor(t)));
    d.check = CheckRef{"OutputSizeMismatch", {}};
    d.note(
        "the group of an unsegmented fusion lists fusion->outputs() (csrc/fusion_segmenter.cpp:296 @ "
        "831821f3ae20); the fusion compiled for it adds each output once (getAllOutputs in "
        "SegmentedFusion::makeFusion, csrc/fusion_segmenter.cpp:1557 @ 4b5243a9dea3)");
    d.note(
        "whether the schedulers take the fusion whole is approximated: a fusion they cut into segments runs");
    d.note("fixed by " + nv::firstChangeTo(nv::DuplicateOutputs::Kept)->label() +
           ": the compiled fusion keeps the duplicate");
    return true;
  }
  return false;
}

}  // namespace fc
