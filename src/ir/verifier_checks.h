// The verifier's checks other than the op rules (verifier_ops.h), in the
// order the verifier runs them, and the state they build for the checks
// after them (VerifyState).
//
// A check over many elements has a range form, for elements [b, e), and a
// whole-fusion form that sizes the state the check builds and runs the
// range form on all elements. The sequential pass (verifier.cpp) calls
// the whole-fusion forms with a reporter into the diagnostics; the
// speculative chunked pass (verifier_chunks.cpp) sizes the state itself
// and calls the range forms on chunks, on several threads, each with a
// SpeculativeReporter. So each check is written once, and its diagnostics
// come only from the sequential pass.
//
// Cascades are suppressed: a tensor with a broken domain, an expr with a
// dangling reference or the wrong arity, and a scalar in a definition cycle
// are reported once and then skipped by the checks that depend on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "ir/verifier_report.h"
#include "ir/verifier_sites.h"
#include "ir/verifier_state.h"
#include "ir/verifier_text.h"

namespace fc::verify {

class Checks {
 public:
  explicit Checks(VerifyState& st) : f_(st.f), st_(st) {}
  VerifyState& state() { return st_; }

  // ---- meshes (verifier_tensors.cpp)
  void checkMeshes(Reporter& r);

  // ---- axis owners (verifier_tensors.cpp)
  // The first tensor whose slots name an axis owns it; a dangling axis or
  // a second owner is a finding. Sizes axis_owner and tensor_ok.
  void claimAxes(Reporter& r);
  // For tensors [b, e); returns the largest number of an axis they claimed.
  uint32_t claimAxes(size_t b, size_t e, Reporter& r);

  // ---- scalars (verifier_scalars.cpp)
  // Dangling operands, cycles, integer-valuedness and constant folding.
  void checkScalars(Reporter& r);
  // The scalars of [b, e) without operands, marked done (2) in `walk`.
  void scalarLeaves(size_t b, size_t e, std::vector<uint8_t>& walk, Reporter& r);
  // The post-order walk over the scalars not done in `walk` (0 new, 1 on
  // the stack, 2 done).
  void scalarWalk(std::vector<uint8_t>& walk, Reporter& r);

  // ---- names (verifier_scalars.cpp)
  // Tensors and named scalars share one namespace.
  void checkNames(Reporter& r);
  // For tensors [b, e), or scalars [b, e); `first` holds the first
  // definition of each name (a uint8_t table: only with a speculative
  // reporter).
  template <typename Slot>
  void checkNames(size_t b, size_t e, bool scalars, FirstTable<Slot>& first, Reporter& r);

  // ---- axis numbers and extents (verifier_tensors.cpp)
  void checkAxes(Reporter& r);
  // Whether the first axis per number is kept in a flat table
  // (max_axis_number + 1 slots) rather than a hash map.
  bool axisNumbersDense() const { return st_.max_axis_number <= 2 * f_.axes.size() + 1024; }
  // For axes [b, e) when the numbers are dense; `first_of_number` holds the
  // first axis of each number.
  void checkAxes(size_t b, size_t e, std::vector<AxisId>& first_of_number, Reporter& r);

  // ---- tensor domains and sizes (verifier_tensors.cpp)
  // Every tensor's domains (duplicates, device axes, contiguity,
  // transforms), then every tensor's size (the product of its constant
  // logical extents must fit int64).
  void checkTensorDomains(Reporter& r);
  void checkTensorSizes(Reporter& r);
  // Both for tensors [b, e), tensor by tensor (one visit of each tensor's
  // data). `stamp` has a slot per axis (kNone initially); only the slots of
  // axes these tensors own are touched.
  void checkTensors(size_t b, size_t e, std::vector<uint32_t>& stamp, Reporter& r);

  // ---- expr references and arity (verifier_exprs.cpp)
  void checkExprRefs(Reporter& r);
  void checkExprRefs(size_t b, size_t e, Reporter& r);

  // ---- definitions and uses (verifier_exprs.cpp)
  // Sizes producer, producer_slot, input_pos and undefined_reported, then
  // runs the four range forms below on everything, in this order.
  void checkDefinitions(Reporter& r);
  // The outputs of exprs [b, e): a second producer of a tensor is a finding.
  void checkProducers(size_t b, size_t e, Reporter& r);
  // Fusion inputs [b, e); `scalar_input` has a flag per scalar.
  void checkFusionInputs(size_t b, size_t e, std::vector<char>& scalar_input, Reporter& r);
  // The tensor inputs of exprs [b, e). Returns whether each of their
  // producers has a lower id than its consumer.
  bool checkUses(size_t b, size_t e, Reporter& r);
  void checkFusionOutputs(size_t b, size_t e, Reporter& r);

  // ---- cycles and the topological order (verifier_exprs.cpp)
  void checkCycles(Reporter& r);
  // Builds st.order; returns which exprs Kahn's walk reached (the others
  // lie on or after a cycle).
  std::vector<char> buildOrder();

  // ---- segmentation (verifier_exprs.cpp)
  void checkSegmentation(Reporter& r);

  // ---- concrete inputs (verifier_concrete_inputs.cpp)
  void checkConcreteInputs(Reporter& r);
  // For concrete inputs [b, e). `tensor_seen` holds the first to describe
  // each fusion input (by position), `scalar_seen` each scalar (uint8_t
  // tables: only with a speculative reporter).
  template <typename Slot>
  void checkConcreteInputs(size_t b, size_t e, FirstTable<Slot>& tensor_seen, FirstTable<Slot>& scalar_seen,
                           Reporter& r);

 private:
  const Fusion& f_;
  VerifyState& st_;

  // The checks of one element.
  void checkExtent(AxisId a, ScalarId s, PlaceField field, Reporter& r);
  void markReported(ScalarId s, Reporter& r);
  void checkTensorDomain(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r);
  void checkTransforms(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r);
  void checkTensorSize(TensorId t, Reporter& r);
  void finishScalar(ScalarId s, Reporter& r);
  void checkExprRef(ExprId e, Reporter& r);
  void reportCycles(const std::vector<char>& done, Reporter& r);

  // Findings whose text is built outside the loops of the range checks
  // (which then stay small: they run on millions of elements).
  void reportClaim(const AxisSite& site, AxisId a, TensorId owner, Reporter& r);
  void reportAxisNumber(AxisId a, AxisId first, Reporter& r);
  void reportName(NameId n, uint32_t def, uint32_t first, Reporter& r);
  void reportProducer(ExprId x, size_t k, ExprId first, Reporter& r);
  void reportUndefined(ExprId x, size_t k, Reporter& r);

  bool tensorValid(TensorId t) const { return st_.tensorValid(t); }
  std::string tname(TensorId t) const { return tensorDesc(f_, t); }
  std::string exprDesc(ExprId e) const { return verify::exprDesc(f_, e); }
  std::string axisDesc(AxisId a) const { return verify::axisDesc(f_, a); }
  // A scalar's name, else its constant value, else "scalar #s".
  std::string scalarDesc(ScalarId s) const;
  Place axisPlace(AxisId a) const { return verify::axisPlace(st_, a); }
  Place scalarPlace(ScalarId s, const Reporter& r) { return verify::scalarPlace(st_, s, r); }
};

}  // namespace fc::verify
