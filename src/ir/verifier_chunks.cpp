#include "ir/verifier_chunks.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "ir/verifier_ops.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc::verify {
namespace {

// Detail phases of `--time-report` (inside "load: verify").
constexpr const char* kChunksAlloc = "chunks 0: state";
constexpr const char* kChunks1 = "chunks 1: scalar leaves, claims, exprs";
constexpr const char* kChunks2 = "chunks 2: scalar walk, names, inputs";
constexpr const char* kChunks3 = "chunks 3: axes, domains, uses, outputs";

// Runs each fill (sizing and filling a block of per-element state) on
// one of up to `w` threads: one thread's first touches of a dozen such
// blocks cost more than the checks that use them.
void fillConcurrently(std::span<const std::function<void()>> fills, size_t w) {
  const size_t nf = fills.size(), wf = std::max<size_t>(1, std::min(w, nf));
  parallelFor(wf, [&](size_t k) {
    for (size_t i = k; i < nf; i += wf) fills[i]();
  });
}

// Work of one stage: `n` elements, checked by fn(begin, end, reporter) in
// chunks that idle threads take in list order.
struct StageItem {
  size_t n;
  std::function<void(size_t, size_t, Reporter&)> fn;
};
constexpr size_t kMinChunk = 2048;

// Runs the items' chunks on `w` threads, each with a speculative reporter
// of its own; false when a chunk found anything (the others then stop).
bool runStage(size_t w, const std::vector<StageItem>& items) {
  struct Chunk {
    size_t item, begin, end;
  };
  std::vector<Chunk> chunks;
  for (size_t i = 0; i < items.size(); ++i) {
    const size_t n = items[i].n;
    const size_t per = std::max(kMinChunk, (n + 4 * w - 1) / (4 * w));
    for (size_t b = 0; b < n; b += per) chunks.push_back({i, b, std::min(n, b + per)});
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> found{false};
  parallelFor(std::min(w, chunks.size()), [&](size_t) {
    SpeculativeReporter r;
    for (size_t c = next++; c < chunks.size() && !found.load(std::memory_order_relaxed); c = next++) {
      items[chunks[c].item].fn(chunks[c].begin, chunks[c].end, r);
      if (r.found() != 0) found.store(true, std::memory_order_relaxed);
    }
  });
  return !found.load();
}

}  // namespace

// Three stages, each waiting for the one before, as each reads what the
// stages before it built:
//  1. scalars without operands | axis claims | expr references | first
//     producers;
//  2. the scalar walk over the rest (one chunk) | names | fusion inputs;
//  3. axis numbers and extents | tensor domains and sizes (the domain
//     stamps are shared: each axis is touched only by its owner's chunk)
//     | uses of undefined tensors, and whether every producer has a lower
//     id than its consumers | fusion outputs.
// Exprs in id order cannot form a cycle; otherwise the topological order
// is built after stage 3, and an expr it cannot reach (a cycle) is a
// finding. The order itself is built only when the op checks need it.
// tests/io/verifier_parallel_test.cpp compares every fixture with the
// one-thread run.
bool checksBeforeOpsClean(Checks& checks, size_t w) {
  PhaseScope alloc_phase(kChunksAlloc, PhaseScope::Detail{});
  VerifyState& st = checks.state();
  const Fusion& f = st.f;
  const size_t nt = f.tensors.size(), na = f.axes.size(), ne = f.exprs.size();
  const size_t ns = f.scalars.size();
  // The per-element state: a dozen blocks of 1-12 MB at 1M exprs.
  FirstTable<uint8_t> first_name;
  std::vector<uint8_t> scalar_walk;
  const std::function<void()> fills[] = {
      [&] { st.axis_owner.assign(na, kNone); },
      [&] { st.tensor_ok.assign(nt, 1); },
      [&] { st.expr_ok.assign(ne, 1); },
      [&] { st.producer.assign(nt, kNone); },
      [&] { st.producer_slot.assign(nt, kNone); },
      [&] { st.input_pos.assign(nt, kNone); },
      [&] { st.undefined_reported.assign(nt, 0); },
      [&] { first_name.assign(f.names.size(), kFreeSlot<uint8_t>); },
      [&] { scalar_walk.assign(ns, 0); },
      [&] { st.scalar_bad.assign(ns, 0); },
      [&] { st.scalar_int.assign(ns, 0); },
      [&] { st.scalar_const.assign(ns, std::nullopt); },
      [&] { st.scalar_overflow.assign(ns, 0); },
      [&] { st.scalar_reported.assign(ns, 0); },
  };
  fillConcurrently(fills, w);
  std::atomic<uint32_t> max_number{0};
  alloc_phase.stop();
  PhaseScope phase1(kChunks1, PhaseScope::Detail{});
  bool clean = runStage(
      w,
      {
          {ns, [&](size_t b, size_t e, Reporter& r) { checks.scalarLeaves(b, e, scalar_walk, r); }},
          {nt,
           [&](size_t b, size_t e, Reporter& r) {
             const uint32_t top = checks.claimAxes(b, e, r);
             uint32_t seen = max_number.load(std::memory_order_relaxed);
             while (seen < top && !max_number.compare_exchange_weak(seen, top, std::memory_order_relaxed)) {
             }
           }},
          {ne, [&](size_t b, size_t e, Reporter& r) { checks.checkExprRefs(b, e, r); }},
          {ne, [&](size_t b, size_t e, Reporter& r) { checks.checkProducers(b, e, r); }},
      });
  phase1.stop();
  if (clean) {
    PhaseScope phase2(kChunks2, PhaseScope::Detail{});
    st.max_axis_number = max_number.load();
    std::vector<char> scalar_input(ns, 0);
    clean = runStage(
        w, {
               {1, [&](size_t, size_t, Reporter& r) { checks.scalarWalk(scalar_walk, r); }},
               {nt, [&](size_t b, size_t e, Reporter& r) { checks.checkNames(b, e, false, first_name, r); }},
               {ns, [&](size_t b, size_t e, Reporter& r) { checks.checkNames(b, e, true, first_name, r); }},
               {f.inputs.size(),
                [&](size_t b, size_t e, Reporter& r) { checks.checkFusionInputs(b, e, scalar_input, r); }},
           });
  }
  if (clean) {
    PhaseScope phase3(kChunks3, PhaseScope::Detail{});
    const bool dense = checks.axisNumbersDense();
    std::vector<AxisId> first_number;  // first axis per axis number
    std::vector<uint32_t> stamp;
    const std::function<void()> fills3[] = {
        [&] { first_number.assign(dense ? size_t{st.max_axis_number} + 1 : 0, kNone); },
        [&] { stamp.assign(na, kNone); }};
    fillConcurrently(fills3, w);
    std::atomic<bool> id_order{true};
    clean = runStage(
        w,
        {
            {dense ? na : 1,
             [&](size_t b, size_t e, Reporter& r) {
               dense ? checks.checkAxes(b, e, first_number, r) : checks.checkAxes(r);
             }},
            {nt, [&](size_t b, size_t e, Reporter& r) { checks.checkTensors(b, e, stamp, r); }},
            {ne,
             [&](size_t b, size_t e, Reporter& r) {
               if (!checks.checkUses(b, e, r)) id_order.store(false, std::memory_order_relaxed);
             }},
            {f.outputs.size(), [&](size_t b, size_t e, Reporter& r) { checks.checkFusionOutputs(b, e, r); }},
        });
    if (clean && !id_order.load()) {
      const std::vector<char> reached = checks.buildOrder();
      clean = std::find(reached.begin(), reached.end(), 0) == reached.end();
    }
  }
  return clean;
}

bool opChecksClean(const VerifyState& st, size_t w) {
  const size_t n = st.f.exprs.size();
  std::atomic<bool> found{false};
  parallelFor(w, [&](size_t k) {
    SpeculativeReporter r;
    for (size_t i = n * k / w; i < n * (k + 1) / w && !found.load(std::memory_order_relaxed); ++i) {
      const ExprId e = st.order_ready ? st.order[i] : static_cast<ExprId>(i);
      if (!st.exprUsable(e)) continue;
      checkOp(st.f, e, st.scalar_const, r);
      if (r.found() != 0) found = true;
    }
  });
  return !found.load();
}

bool concreteInputsClean(Checks& checks, size_t w) {
  const Fusion& f = checks.state().f;
  FirstTable<uint8_t> tensor_seen, scalar_seen;
  const std::function<void()> fills[] = {[&] { tensor_seen.assign(f.inputs.size(), kFreeSlot<uint8_t>); },
                                         [&] { scalar_seen.assign(f.scalars.size(), kFreeSlot<uint8_t>); }};
  fillConcurrently(fills, w);
  return runStage(w, {{f.concrete_inputs.size(), [&](size_t b, size_t e, Reporter& r) {
                         checks.checkConcreteInputs(b, e, tensor_seen, scalar_seen, r);
                       }}});
}

}  // namespace fc::verify
