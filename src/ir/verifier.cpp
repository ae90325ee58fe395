// Structural and type verification of a Fusion: the order of the checks,
// and on how many threads they run.
//
// The checks run in a fixed order (meshes, axis owners, scalars, names,
// axis numbers and extents, tensor domains and sizes, expr references and
// arity, definitions / uses / cycles, per-op rank, iter-type and dtype
// rules, segmentation, concrete inputs) so that the output is
// deterministic. Every diagnostic carries the place of the offending value,
// derived from ids (verifier_text.h, verifier_sites.h).
//
// The checks themselves are in verifier_checks.h (one function per check)
// and verifier_ops.h (the op rules); every diagnostic comes from them, run
// here in the sequential order. A large fusion is first checked by the
// speculative chunked pass (verifier_chunks.h), which only says whether
// anything is wrong: when nothing is, that is the answer; when something
// is, the checks run again here and report.
//
// Complexity: O(size of the fusion) time and memory (every traversal is
// iterative; the scalar DAG and the expr graph are visited once each;
// duplicate detection uses tables, hash maps or small per-mesh lists).
// Pointers are built only for a diagnostic.
#include "ir/verifier.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ir/verifier_checks.h"
#include "ir/verifier_chunks.h"
#include "ir/verifier_ops.h"
#include "ir/verifier_report.h"
#include "ir/verifier_state.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc {
namespace verify {
namespace {

// The reporter of the sequential op checks: a consumer of a tensor whose
// producer already got a shape (rank / iter type / extent) or dtype
// diagnostic does not repeat the same root cause in that category.
class FollowOnFilter final : public Reporter {
 public:
  explicit FollowOnFilter(Reporter& to) : Reporter({}, to.speculative()), to_(to) {}
  // Starts the checks of one expr; `skip_*`: an input's producer got a
  // diagnostic of that category.
  void start(bool skip_shape, bool skip_dtype) {
    skip_shape_ = skip_shape;
    skip_dtype_ = skip_dtype;
    shape_errors_ = dtype_errors_ = 0;
  }
  size_t shapeErrors() const { return shape_errors_; }
  size_t dtypeErrors() const { return dtype_errors_; }
  Diagnostic& error(DiagCode code, std::string message, const Place& where) override {
    const bool dtype = code == DiagCode::DTypeMismatch;
    if (dtype ? skip_dtype_ : skip_shape_) {
      scratch_ = Diagnostic{};
      return scratch_;
    }
    (dtype ? dtype_errors_ : shape_errors_)++;
    ++found_;
    return to_.error(code, std::move(message), where);
  }

 private:
  Reporter& to_;
  bool skip_shape_ = false, skip_dtype_ = false;
  size_t shape_errors_ = 0, dtype_errors_ = 0;
  Diagnostic scratch_;
};

// Detail phases of `--time-report` (inside "load: verify").
constexpr const char* kFirstGroup = "scalars, axis owners";
constexpr const char* kSecondGroup = "tensors, axes | expr references, cycles";
constexpr const char* kOps = "op checks";
constexpr const char* kRest = "segmentation, concrete inputs";

class Verifier {
 public:
  Verifier(const Fusion& f, DiagnosticSink& sink, const std::string& file, const VerifyOptions& opts)
      : f_(f), sink_(sink), file_(file), opts_(opts), st_(f), checks_(st_) {}

  bool run() {
    const size_t before = sink_.errorCount();
    SinkReporter r(sink_, file_);
    checks_.checkMeshes(r);
    if (inChunks()) {
      const bool clean = checksBeforeOpsClean(checks_, threadsFor(opts_.threads));
      if (opts_.stats != nullptr) {
        opts_.stats->checks_in_chunks = true;
        opts_.stats->chunks_rerun = !clean;
      }
      if (!clean) runChecksInTwoGroups(r);
    } else {
      PhaseScope first(kFirstGroup, PhaseScope::Detail{});
      checks_.claimAxes(r);
      checks_.checkScalars(r);
      first.stop();
      PhaseScope second(kSecondGroup, PhaseScope::Detail{});
      checks_.checkNames(r);
      checks_.checkAxes(r);
      checks_.checkTensorDomains(r);
      checks_.checkTensorSizes(r);
      checks_.checkExprRefs(r);
      checks_.checkDefinitions(r);
      checks_.checkCycles(r);
    }
    PhaseScope ops(kOps, PhaseScope::Detail{});
    checkOps(r);
    ops.stop();
    PhaseScope rest(kRest, PhaseScope::Detail{});
    checks_.checkSegmentation(r);
    if (!inChunks() || !concreteInputsClean(checks_, threadsFor(opts_.threads)))
      checks_.checkConcreteInputs(r);
    rest.stop();
    if (opts_.stats != nullptr) opts_.stats->order_built = st_.order_ready;
    return sink_.errorCount() == before;
  }

 private:
  const Fusion& f_;
  DiagnosticSink& sink_;
  const std::string& file_;
  VerifyOptions opts_;
  VerifyState st_;
  Checks checks_;
  // Per tensor: its producer got a shape / dtype diagnostic (checkOps).
  std::vector<char> shape_suspect_, dtype_suspect_;

  // Whether the checks of this fusion run in chunks on several threads first.
  bool inChunks() const {
    return threadsFor(opts_.threads) > 1 && f_.exprs.size() >= opts_.parallel_min_exprs;
  }

  // The checks before the op checks on two threads, when the chunked pass
  // found something, with the diagnostics of the sequential order:
  //  1. claimAxes | checkScalars, speculatively: the scalar checks read
  //     nothing claimAxes writes, except the axis sites that the scalar
  //     sites of their diagnostics are derived from. When they find
  //     anything, their findings are dropped and they run again after it.
  //  2. checkNames, checkAxes, checkTensorDomains, checkTensorSizes (axes,
  //     tensors) | checkExprRefs, checkDefinitions, checkCycles (exprs): the
  //     second group reads none of the state the first writes (tensor_ok,
  //     scalar_reported) and writes only its own (expr_ok, producer,
  //     input_pos, order); its diagnostics follow the first group's, as in
  //     the sequential order.
  // tests/io/verifier_parallel_test.cpp compares every fixture with the
  // one-thread run.
  void runChecksInTwoGroups(Reporter& r) {
    PhaseScope first(kFirstGroup, PhaseScope::Detail{});
    SpeculativeReporter scalar_r;
    parallelFor(2, [&](size_t task) {
      if (task == 0) {
        checks_.claimAxes(r);
      } else {
        checks_.checkScalars(scalar_r);
      }
    });
    const bool scalars_rerun = scalar_r.found() != 0;
    if (scalars_rerun) checks_.checkScalars(r);
    first.stop();
    PhaseScope second(kSecondGroup, PhaseScope::Detail{});
    DiagnosticSink expr_sink;
    SinkReporter expr_r(expr_sink, file_);
    parallelFor(2, [&](size_t task) {
      if (task == 0) {
        checks_.checkNames(r);
        checks_.checkAxes(r);
        checks_.checkTensorDomains(r);
        checks_.checkTensorSizes(r);
      } else {
        checks_.checkExprRefs(expr_r);
        checks_.checkDefinitions(expr_r);
        checks_.checkCycles(expr_r);
      }
    });
    sink_.append(std::move(expr_sink));
    if (opts_.stats != nullptr) {
      opts_.stats->checks_in_groups = true;
      opts_.stats->scalars_rerun = scalars_rerun;
    }
  }

  // The per-op checks, in topological order. A large fusion is checked by
  // the chunked pass first: an op's diagnostics depend only on the IR and
  // on whether a producer already got one, so when no chunk finds
  // anything, neither would the sequential loop, and that is the answer.
  // Otherwise the loop runs on this thread, which orders and suppresses
  // the findings (tests/io/verifier_parallel_test.cpp).
  void checkOps(Reporter& r) {
    shape_suspect_.assign(f_.tensors.size(), 0);
    dtype_suspect_.assign(f_.tensors.size(), 0);
    const size_t n = f_.exprs.size();
    const size_t w = std::min<size_t>(threadsFor(opts_.threads), n);
    if (w > 1 && n >= opts_.parallel_min_exprs) {
      const bool clean = opChecksClean(st_, w);
      if (opts_.stats != nullptr) {
        opts_.stats->ops_in_chunks = true;
        opts_.stats->ops_rerun = !clean;
      }
      if (clean) return;
    }
    if (!st_.order_ready) checks_.buildOrder();
    FollowOnFilter filter(r);
    for (ExprId e : st_.order)
      if (st_.exprUsable(e)) checkOpGuarded(e, filter);
  }

  void checkOpGuarded(ExprId e, FollowOnFilter& r) {
    const Expr& x = f_.exprs[e];
    bool skip_shape = false, skip_dtype = false;
    for (const ValueRef& v : x.inputs)
      if (v.isTensor()) {
        skip_shape = skip_shape || shape_suspect_[v.id];
        skip_dtype = skip_dtype || dtype_suspect_[v.id];
      }
    r.start(skip_shape, skip_dtype);
    checkOp(f_, e, st_.scalar_const, r);
    for (TensorId t : x.outputs) {
      if (r.shapeErrors()) shape_suspect_[t] = 1;
      if (r.dtypeErrors()) dtype_suspect_[t] = 1;
    }
  }
};

}  // namespace
}  // namespace verify

bool verifyFusion(const Fusion& f, DiagnosticSink& sink, const std::string& file, const VerifyOptions& opts) {
  verify::Verifier v(f, sink, file, opts);
  return v.run();
}

}  // namespace fc
