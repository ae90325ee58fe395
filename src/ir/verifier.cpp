// Structural and type verification of a Fusion (DESIGN §2 step 1).
//
// The checks run in a fixed order (meshes, scalars, tensors and their
// domains, expr references and arity, definitions / uses / cycles, per-op
// rank, iter-type and dtype rules, segmentation, concrete inputs) so that
// the output is deterministic. Every diagnostic carries the JSON pointer of
// the offending value, derived from ids: tensor i -> /tensors/i, its axis at
// logical position j -> /tensors/i/logical/j, a declared scalar ->
// /scalars/<decl>, expr e -> /exprs/e. An axis object's own fields (extent,
// id) are pointed at where the object is defined: the first of root,
// logical, transform outputs, allocation, loop that lists it.
//
// Cascades are suppressed: a tensor with a broken domain, an expr with a
// dangling reference or the wrong arity, and a scalar in a definition cycle
// are reported once and then skipped by the checks that depend on them.
//
// Complexity: O(size of the fusion) time and memory (every traversal is
// iterative; the scalar DAG and the expr graph are visited once each;
// duplicate detection uses hash maps or sorting of small per-mesh lists).
// Pointers are not built on the success path: where an axis object or a
// scalar appears is kept as a small site record (AxisSite / ScalarSite) and
// rendered as a JSON pointer only when a diagnostic needs it.
#include "ir/verifier.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/op_kind.h"
#include "ir/verifier_ops.h"
#include "ir/verifier_report.h"
#include "ir/verifier_text.h"
#include "support/checked.h"
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
  Diagnostic& error(DiagCode code, std::string message, const std::string& pointer) override {
    const bool dtype = code == DiagCode::DTypeMismatch;
    if (dtype ? skip_dtype_ : skip_shape_) {
      scratch_ = Diagnostic{};
      return scratch_;
    }
    (dtype ? dtype_errors_ : shape_errors_)++;
    ++found_;
    return to_.error(code, std::move(message), pointer);
  }

 private:
  Reporter& to_;
  bool skip_shape_ = false, skip_dtype_ = false;
  size_t shape_errors_ = 0, dtype_errors_ = 0;
  Diagnostic scratch_;
};

// ---------------------------------------------------------------- verifier

// Detail phases of `--time-report` (inside "load: verify").
constexpr const char* kFirstGroup = "scalars, axis owners";
constexpr const char* kSecondGroup = "tensors, axes | expr references, cycles";
constexpr const char* kOps = "op checks";
constexpr const char* kChunksAlloc = "chunks 0: state";
constexpr const char* kChunks1 = "chunks 1: scalar leaves, claims, exprs";
constexpr const char* kChunks2 = "chunks 2: scalar walk, names, inputs";
constexpr const char* kChunks3 = "chunks 3: axes, domains, uses, outputs";
constexpr const char* kRest = "segmentation, concrete inputs";

class Verifier {
 public:
  Verifier(const Fusion& f, DiagnosticSink& sink, const std::string& file, const VerifyOptions& opts)
      : f_(f), sink_(sink), file_(file), opts_(opts) {}

  bool run() {
    const size_t before = sink_.errorCount();
    SinkReporter r(sink_, file_);
    checkMeshes(r);
    if (inChunks()) {
      if (!runChecksInChunks()) runChecksInTwoGroups(r);
    } else {
      PhaseScope first(kFirstGroup, PhaseScope::Detail{});
      claimAxes(r);
      checkScalars(r);
      first.stop();
      PhaseScope second(kSecondGroup, PhaseScope::Detail{});
      checkNames(r);
      checkAxes(r);
      checkTensorDomains(r);
      checkTensorSizes(r);
      checkExprRefs(r);
      checkDefinitions(r);
      checkCycles(r);
    }
    PhaseScope ops(kOps, PhaseScope::Detail{});
    checkOps(r);
    ops.stop();
    PhaseScope rest(kRest, PhaseScope::Detail{});
    checkSegmentation(r);
    if (!inChunks() || !concreteInputsClean()) checkConcreteInputs(r);
    rest.stop();
    if (opts_.stats != nullptr) opts_.stats->order_built = order_ready_;
    return sink_.errorCount() == before;
  }

 private:
  const Fusion& f_;
  DiagnosticSink& sink_;
  const std::string& file_;
  VerifyOptions opts_;

  // Per axis: the tensor whose domains claim it first (its owner).
  std::vector<TensorId> axis_owner_;
  // Where an axis object is: a domain position or a transform slot of the
  // owning tensor (rendered by axisPtr).
  struct AxisSite {
    enum Field : uint8_t { Root, Logical, Allocation, Loop, TrOuter, TrInner, TrOut, TrIn };
    TensorId t = kNone;
    Field field = Root;
    uint32_t index = 0;  // domain position, or transform index
  };
  // Per tensor: false when a domain references a bad axis.
  std::vector<char> tensor_ok_;
  // Per scalar: where it appears in the repro, and what folding learned.
  // Where a scalar first appears (rendered by scalarPtr).
  struct ScalarSite {
    enum Kind : uint8_t {
      None,
      Decl,        // /scalars/a
      DeclValue,   // /scalars/a/value
      AxisExtent,  // <axis a>/extent
      AxisExpanded,
      Factor,     // /tensors/a/transforms/b/factor
      ExprInput,  // /exprs/a/inputs/b
      ExprShape,
      ExprPad,
      ExprRangeStart,
      ExprRangeStop,
      ExprRangeStep,
      ExprValue,  // /exprs/a/value
      ExprStart,
      ExprStep,
    };
    Kind kind = None;
    uint32_t a = 0, b = 0;
  };
  // Seeded when a diagnostic first needs a scalar's site (after claimAxes).
  std::vector<ScalarSite> scalar_site_;
  std::once_flag sites_seeded_;
  std::vector<char> scalar_bad_;  // dangling operand or part of a cycle
  std::vector<char> scalar_int_;  // integer-valued
  std::vector<std::optional<int64_t>> scalar_const_;
  std::vector<char> scalar_overflow_;  // constant operands, but folding overflows or divides by 0
  std::vector<char> scalar_reported_;
  // Per expr: false when a reference is dangling or the arity is wrong.
  std::vector<char> expr_ok_;
  // Per tensor: first producing expr and the output slot.
  std::vector<ExprId> producer_;
  std::vector<uint32_t> producer_slot_;
  std::vector<uint32_t> input_pos_;  // position in fusion inputs, kNone if not an input
  std::vector<char> undefined_reported_;
  // Whether the checks of this fusion run in chunks on several threads first.
  bool inChunks() const {
    return threadsFor(opts_.threads) > 1 && f_.exprs.size() >= opts_.parallel_min_exprs;
  }

  // Exprs in a topological order (Kahn, FIFO from id order); exprs on or
  // after a cycle are appended in id order.
  std::vector<ExprId> order_;
  uint32_t max_axis_number_ = 0;  // of the axes that tensors own (claimAxes)
  bool order_ready_ = false;      // order_ is built by checkCycles, or when checkOps needs it
  std::vector<char> shape_suspect_, dtype_suspect_;

  // The checks before the op checks of a large fusion, in chunks on every
  // thread, for the common case that they find nothing. Each chunk runs
  // the sequential check of its elements with a speculative reporter. An
  // element's check reads only the IR and the state that earlier stages
  // build, so when no chunk finds anything, neither would the sequential
  // checks; and then the state they leave (axis owners, scalar facts,
  // producers, input positions, every tensor and expr usable) is the
  // sequential one, because each shared slot is claimed by exactly one
  // element (claim()). Any finding means: false, and runChecksInTwoGroups
  // runs the checks again in the sequential order, reporting. Three
  // stages, each waiting for the one before:
  //  1. scalars without operands | axis claims | expr references | first
  //     producers;
  //  2. checkScalars' walk over the rest (one chunk) | names | fusion
  //     inputs;
  //  3. axis numbers and extents | tensor domains and sizes (the domain
  //     stamps are shared: each axis is touched only by its owner's chunk)
  //     | uses of undefined tensors, and whether every producer has a lower
  //     id than its consumers | fusion outputs.
  // Exprs in id order cannot form a cycle; otherwise the topological order
  // is built after stage 3, and an expr it cannot reach (a cycle) is a
  // finding. The order itself is built only when the op checks need it.
  // tests/io/verifier_parallel_test.cpp compares every fixture with the
  // one-thread run.
  bool runChecksInChunks() {
    PhaseScope alloc_phase(kChunksAlloc, PhaseScope::Detail{});
    const size_t w = threadsFor(opts_.threads);
    const size_t nt = f_.tensors.size(), na = f_.axes.size(), ne = f_.exprs.size();
    const size_t ns = f_.scalars.size();
    if (opts_.stats != nullptr) opts_.stats->checks_in_chunks = true;
    // The per-element state: a dozen blocks of 1-12 MB at 1M exprs.
    std::vector<uint32_t> first_name;
    std::vector<uint8_t> scalar_state;
    const std::function<void()> fills[] = {
        [&] { axis_owner_.assign(na, kNone); },
        [&] { tensor_ok_.assign(nt, 1); },
        [&] { expr_ok_.assign(ne, 1); },
        [&] { producer_.assign(nt, kNone); },
        [&] { producer_slot_.assign(nt, kNone); },
        [&] { input_pos_.assign(nt, kNone); },
        [&] { undefined_reported_.assign(nt, 0); },
        [&] { first_name.assign(f_.names.size(), kNone); },
        [&] { scalar_state.assign(ns, 0); },
        [&] { scalar_bad_.assign(ns, 0); },
        [&] { scalar_int_.assign(ns, 0); },
        [&] { scalar_const_.assign(ns, std::nullopt); },
        [&] { scalar_overflow_.assign(ns, 0); },
        [&] { scalar_reported_.assign(ns, 0); },
    };
    fillConcurrently(fills, w);
    std::atomic<uint32_t> max_number{0};
    alloc_phase.stop();
    PhaseScope phase1(kChunks1, PhaseScope::Detail{});
    bool clean =
        runStage(w, {
                        {ns, [&](size_t b, size_t e, Reporter& r) { scalarLeaves(b, e, scalar_state, r); }},
                        {nt,
                         [&](size_t b, size_t e, Reporter& r) {
                           const uint32_t top = claimAxes(b, e, r);
                           uint32_t seen = max_number.load(std::memory_order_relaxed);
                           while (seen < top &&
                                  !max_number.compare_exchange_weak(seen, top, std::memory_order_relaxed)) {
                           }
                         }},
                        {ne, [&](size_t b, size_t e, Reporter& r) { checkExprRefs(b, e, r); }},
                        {ne, [&](size_t b, size_t e, Reporter& r) { checkProducers(b, e, r); }},
                    });
    phase1.stop();
    if (clean) {
      PhaseScope phase2(kChunks2, PhaseScope::Detail{});
      max_axis_number_ = max_number.load();
      std::vector<char> scalar_input(ns, 0);
      clean = runStage(
          w, {
                 {1, [&](size_t, size_t, Reporter& r) { scalarWalk(scalar_state, r); }},
                 {nt, [&](size_t b, size_t e, Reporter& r) { checkNames(b, e, false, first_name, r); }},
                 {ns, [&](size_t b, size_t e, Reporter& r) { checkNames(b, e, true, first_name, r); }},
                 {f_.inputs.size(),
                  [&](size_t b, size_t e, Reporter& r) { checkFusionInputs(b, e, scalar_input, r); }},
             });
    }
    if (clean) {
      PhaseScope phase3(kChunks3, PhaseScope::Detail{});
      const bool dense = axisNumbersDense();
      std::vector<AxisId> first_number;  // first axis per axis number
      std::vector<uint32_t> stamp;
      const std::function<void()> fills3[] = {
          [&] { first_number.assign(dense ? size_t{max_axis_number_} + 1 : 0, kNone); },
          [&] { stamp.assign(na, kNone); }};
      fillConcurrently(fills3, w);
      std::atomic<bool> id_order{true};
      clean = runStage(
          w,
          {
              {dense ? na : 1, [&](size_t b, size_t e,
                                   Reporter& r) { dense ? checkAxes(b, e, first_number, r) : checkAxes(r); }},
              {nt,
               [&](size_t b, size_t e, Reporter& r) {
                 checkTensorDomains(b, e, stamp, r);
                 checkTensorSizes(b, e, r);
               }},
              {ne,
               [&](size_t b, size_t e, Reporter& r) {
                 if (!checkUses(b, e, r)) id_order.store(false, std::memory_order_relaxed);
               }},
              {f_.outputs.size(), [&](size_t b, size_t e, Reporter& r) { checkFusionOutputs(b, e, r); }},
          });
      if (clean && !id_order.load()) {
        const std::vector<char> reached = buildOrder();
        clean = std::find(reached.begin(), reached.end(), 0) == reached.end();
      }
    }
    if (opts_.stats != nullptr) opts_.stats->chunks_rerun = !clean;
    return clean;
  }

  // Runs each fill (sizing and filling a block of per-element state) on
  // one of up to `w` threads: one thread's first touches of a dozen such
  // blocks cost more than the checks that use them.
  static void fillConcurrently(std::span<const std::function<void()>> fills, size_t w) {
    const size_t nf = fills.size(), wf = std::max<size_t>(1, std::min(w, nf));
    parallelFor(wf, [&](size_t k) {
      for (size_t i = k; i < nf; i += wf) fills[i]();
    });
  }

  // Work of one stage of a speculative pass: `n` elements, checked by
  // fn(begin, end, reporter) in chunks that idle threads take in list order.
  struct StageItem {
    size_t n;
    std::function<void(size_t, size_t, Reporter&)> fn;
  };
  static constexpr size_t kMinChunk = 2048;

  // Runs the items' chunks on `w` threads, each with a speculative reporter
  // of its own; false when a chunk found anything.
  static bool runStage(size_t w, const std::vector<StageItem>& items) {
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

  // The checks before the op checks on two threads, when their chunks
  // (runChecksInChunks) found something, with the diagnostics of the
  // sequential order:
  //  1. claimAxes | checkScalars, speculatively: the scalar checks read
  //     nothing claimAxes writes, except the axis sites that the scalar
  //     sites of their diagnostics are derived from. When they find
  //     anything, their findings are dropped and they run again after it.
  //  2. checkNames, checkAxes, checkTensorDomains, checkTensorSizes (axes,
  //     tensors) | checkExprRefs, checkDefinitions, checkCycles (exprs): the
  //     second group reads none of the state the first writes (tensor_ok_,
  //     scalar_reported_) and writes only its own (expr_ok_, producer_,
  //     input_pos_, order_); its diagnostics follow the first group's, as in
  //     the sequential order.
  // tests/io/verifier_parallel_test.cpp compares every fixture with the
  // one-thread run.
  void runChecksInTwoGroups(Reporter& r) {
    PhaseScope first(kFirstGroup, PhaseScope::Detail{});
    SpeculativeReporter scalar_r;
    parallelFor(2, [&](size_t task) {
      if (task == 0) {
        claimAxes(r);
      } else {
        checkScalars(scalar_r);
      }
    });
    const bool scalars_rerun = scalar_r.found() != 0;
    if (scalars_rerun) checkScalars(r);
    first.stop();
    PhaseScope second(kSecondGroup, PhaseScope::Detail{});
    DiagnosticSink expr_sink;
    SinkReporter expr_r(expr_sink, file_);
    parallelFor(2, [&](size_t task) {
      if (task == 0) {
        checkNames(r);
        checkAxes(r);
        checkTensorDomains(r);
        checkTensorSizes(r);
      } else {
        checkExprRefs(expr_r);
        checkDefinitions(expr_r);
        checkCycles(expr_r);
      }
    });
    sink_.append(std::move(expr_sink));
    if (opts_.stats != nullptr) {
      opts_.stats->checks_in_groups = true;
      opts_.stats->scalars_rerun = scalars_rerun;
    }
  }

  std::string tname(TensorId t) const { return tensorDesc(f_, t); }
  std::string exprDesc(ExprId e) const { return verify::exprDesc(f_, e); }
  std::string axisDesc(AxisId a) const { return verify::axisDesc(f_, a); }
  std::string scalarDesc(ScalarId s) const {
    std::string_view n = f_.scalarName(s);
    if (!n.empty()) return std::string(n);
    if (s < scalar_const_.size() && scalar_const_[s]) return std::to_string(*scalar_const_[s]);
    return "scalar #" + num(s);
  }

  bool tensorValid(TensorId t) const { return t < f_.tensors.size(); }
  bool tensorUsable(TensorId t) const { return t < f_.tensors.size() && tensor_ok_[t]; }
  bool exprUsable(ExprId e) const {
    if (!expr_ok_[e]) return false;
    const Expr& x = f_.exprs[e];
    for (const ValueRef& v : x.inputs)
      if (v.isTensor() && !tensor_ok_[v.id]) return false;
    for (TensorId t : x.outputs)
      if (!tensor_ok_[t]) return false;
    return true;
  }

  std::string axisPtr(AxisId a) const { return sitePtr(siteOf(a)); }
  // Where axis a is defined: the first slot of its owner that names it
  // (found when a diagnostic needs it, not kept per axis).
  AxisSite siteOf(AxisId a) const {
    if (a >= axis_owner_.size() || axis_owner_[a] == kNone) return {};
    return siteIn(axis_owner_[a], a);
  }
  // The first slot of tensor t that names axis a.
  AxisSite siteIn(TensorId t, AxisId a) const {
    AxisSite site;
    bool found = false;
    forEachAxisSlot(f_.tensors[t], [&](AxisId x, AxisSite::Field field, size_t index) {
      if (found || x != a) return;
      site = AxisSite{t, field, static_cast<uint32_t>(index)};
      found = true;
    });
    return site;
  }
  std::string sitePtr(const AxisSite& s) const {
    if (s.t == kNone) return {};
    switch (s.field) {
      case AxisSite::Root: return tp(s.t) + "/root/" + num(s.index);
      case AxisSite::Logical: return tp(s.t) + "/logical/" + num(s.index);
      case AxisSite::Allocation: return tp(s.t) + "/allocation/" + num(s.index);
      case AxisSite::Loop: return tp(s.t) + "/loop/" + num(s.index);
      case AxisSite::TrOuter: return tp(s.t) + "/transforms/" + num(s.index) + "/outer";
      case AxisSite::TrInner: return tp(s.t) + "/transforms/" + num(s.index) + "/inner";
      case AxisSite::TrOut: return tp(s.t) + "/transforms/" + num(s.index) + "/out";
      case AxisSite::TrIn: return tp(s.t) + "/transforms/" + num(s.index) + "/in";
    }
    return {};
  }
  std::string scalarPtr(ScalarId id, Reporter& r) {
    // A speculative run (runChecksInTwoGroups) may not read the sites while
    // another thread seeds them; its findings are dropped anyway.
    if (r.speculative()) return {};
    std::call_once(sites_seeded_, [this] { seedScalarSites(); });
    const ScalarSite& s = scalar_site_[id];
    switch (s.kind) {
      case ScalarSite::None: return {};
      case ScalarSite::Decl: return "/scalars/" + num(s.a);
      case ScalarSite::DeclValue: return "/scalars/" + num(s.a) + "/value";
      case ScalarSite::AxisExtent: return axisPtr(s.a) + "/extent";
      case ScalarSite::AxisExpanded: return axisPtr(s.a) + "/expanded";
      case ScalarSite::Factor: return tp(s.a) + "/transforms/" + num(s.b) + "/factor";
      case ScalarSite::ExprInput: return ep(s.a) + "/inputs/" + num(s.b);
      case ScalarSite::ExprShape: return ep(s.a) + "/shape/" + num(s.b);
      case ScalarSite::ExprPad: return ep(s.a) + "/pad/" + num(s.b);
      case ScalarSite::ExprRangeStart: return ep(s.a) + "/ranges/" + num(s.b) + "/start";
      case ScalarSite::ExprRangeStop: return ep(s.a) + "/ranges/" + num(s.b) + "/stop";
      case ScalarSite::ExprRangeStep: return ep(s.a) + "/ranges/" + num(s.b) + "/step";
      case ScalarSite::ExprValue: return ep(s.a) + "/value";
      case ScalarSite::ExprStart: return ep(s.a) + "/start";
      case ScalarSite::ExprStep: return ep(s.a) + "/step";
    }
    return {};
  }

  // ------------------------------------------------------------ meshes
  void checkMeshes(Reporter& r) {
    for (MeshId m = 0; m < f_.meshes.size(); ++m) {
      const Mesh& mesh = f_.meshes[m];
      std::string p = "/meshes/" + num(m);
      if (mesh.devices.empty() || mesh.shape.empty()) {
        r.error(DiagCode::EmptyMesh, "mesh " + num(m) + " has no devices",
                mesh.devices.empty() ? p + "/devices" : p + "/shape");
        continue;
      }
      bool shape_ok = true;
      int64_t product = 1;
      for (size_t j = 0; j < mesh.shape.size(); ++j) {
        if (mesh.shape[j] <= 0) {
          r.error(DiagCode::BadMesh,
                  "mesh " + num(m) + " has a non-positive extent " + std::to_string(mesh.shape[j]),
                  p + "/shape/" + num(j));
          shape_ok = false;
          continue;
        }
        auto prod = checkedMul(product, mesh.shape[j]);
        if (!prod) {
          r.error(DiagCode::BadMesh, "mesh " + num(m) + " shape overflows", p + "/shape/" + num(j));
          shape_ok = false;
          break;
        }
        product = *prod;
      }
      if (shape_ok && product != mesh.size()) {
        std::string shape;
        for (size_t j = 0; j < mesh.shape.size(); ++j)
          shape += (j ? ", " : "") + std::to_string(mesh.shape[j]);
        r.error(DiagCode::BadMesh,
                "mesh " + num(m) + " has " + num(mesh.devices.size()) + " devices but its shape [" + shape +
                    "] needs " + std::to_string(product),
                p + "/devices")
            .note("the shape is here", r.at(p + "/shape"));
      }
      std::unordered_map<int64_t, size_t> seen;
      for (size_t k = 0; k < mesh.devices.size(); ++k) {
        int64_t d = mesh.devices[k];
        if (d < 0) {
          r.error(DiagCode::BadMesh, "mesh " + num(m) + " has a negative device id " + std::to_string(d),
                  p + "/devices/" + num(k));
          continue;
        }
        auto [it, fresh] = seen.emplace(d, k);
        if (!fresh)
          r.error(DiagCode::BadMesh, "mesh " + num(m) + " lists device " + std::to_string(d) + " twice",
                  p + "/devices/" + num(k))
              .note("first listed here", r.at(p + "/devices/" + num(it->second)));
      }
    }
  }

  // ------------------------------------------------------------ axes
  // Calls claim(axis, field, index) for every axis slot of `tv`: root,
  // logical, transform outputs, allocation, loop, then transform inputs.
  // The first slot naming an axis is where its object is (in the canonical
  // form), so this order decides an axis's site.
  template <typename Claim>
  static void forEachAxisSlot(const Tensor& tv, Claim&& claim) {
    for (size_t j = 0; j < tv.root.size(); ++j) claim(tv.root[j], AxisSite::Root, j);
    for (size_t j = 0; j < tv.logical.size(); ++j) claim(tv.logical[j], AxisSite::Logical, j);
    for (size_t k = 0; k < tv.transforms.size(); ++k) {
      const AxisTransform& x = tv.transforms[k];
      if (x.kind == AxisTransform::Kind::Split) {
        claim(x.out, AxisSite::TrOuter, k);
        claim(x.out2, AxisSite::TrInner, k);
      } else {
        claim(x.out, AxisSite::TrOut, k);
      }
    }
    for (size_t j = 0; j < tv.allocation.size(); ++j) claim(tv.allocation[j], AxisSite::Allocation, j);
    for (size_t j = 0; j < tv.loop.size(); ++j) claim(tv.loop[j], AxisSite::Loop, j);
    // Transform inputs must be axes of this tensor as well.
    for (size_t k = 0; k < tv.transforms.size(); ++k) {
      const AxisTransform& x = tv.transforms[k];
      if (x.kind == AxisTransform::Kind::Split) {
        claim(x.in, AxisSite::TrIn, k);
      } else {
        claim(x.in, AxisSite::TrOuter, k);
        claim(x.in2, AxisSite::TrInner, k);
      }
    }
  }

  // The first tensor whose slots name an axis owns it; a dangling axis or a
  // second owner is a finding.
  void claimAxes(Reporter& r) {
    axis_owner_.assign(f_.axes.size(), kNone);
    tensor_ok_.assign(f_.tensors.size(), 1);
    max_axis_number_ = claimAxes(0, f_.tensors.size(), r);
  }

  // claimAxes for tensors [b, e); returns the largest number of an axis
  // they claimed.
  uint32_t claimAxes(size_t b, size_t e, Reporter& r) {
    uint32_t top = 0;
    for (size_t i = b; i < e; ++i) {
      const TensorId t = static_cast<TensorId>(i);
      forEachAxisSlot(f_.tensors[t], [&](AxisId a, AxisSite::Field field, size_t index) {
        const AxisSite site{t, field, static_cast<uint32_t>(index)};
        if (a == kNone || a >= f_.axes.size()) {
          r.error(DiagCode::DanglingAxis, tname(t) + " names an axis that does not exist", sitePtr(site));
          tensor_ok_[t] = 0;
          return;
        }
        const TensorId owner = claim(axis_owner_[a], t, r);
        if (owner == kNone) {
          top = std::max(top, f_.axes[a].number);
        } else if (owner != t) {
          r.error(DiagCode::DanglingAxis,
                  tname(t) + " names axis " + axisDesc(a) + ", which belongs to " + tname(owner),
                  sitePtr(site))
              .note("the axis is defined here", r.at(sitePtr(siteIn(owner, a))));
          tensor_ok_[t] = 0;
        }
      });
    }
    return top;
  }

  // ------------------------------------------------------------ scalars
  void seedScalarSites() {
    scalar_site_.assign(f_.scalars.size(), ScalarSite{});
    std::vector<ScalarId> work;
    using K = ScalarSite::Kind;
    auto seed = [&](ScalarId s, K kind, size_t a, size_t b = 0) {
      if (s == kNone || s >= f_.scalars.size() || scalar_site_[s].kind != ScalarSite::None) return;
      scalar_site_[s] = ScalarSite{kind, static_cast<uint32_t>(a), static_cast<uint32_t>(b)};
      work.push_back(s);
    };
    for (ScalarId s = 0; s < f_.scalars.size(); ++s)
      if (f_.scalars[s].decl != kNone) seed(s, K::Decl, f_.scalars[s].decl);
    for (AxisId a = 0; a < f_.axes.size(); ++a) {
      if (axis_owner_[a] == kNone) continue;
      seed(f_.axes[a].extent, K::AxisExtent, a);
      seed(f_.axes[a].expanded, K::AxisExpanded, a);
    }
    for (TensorId t = 0; t < f_.tensors.size(); ++t)
      for (size_t k = 0; k < f_.tensors[t].transforms.size(); ++k)
        seed(f_.tensors[t].transforms[k].factor, K::Factor, t, k);
    for (ExprId e = 0; e < f_.exprs.size(); ++e) {
      const Expr& x = f_.exprs[e];
      for (size_t k = 0; k < x.inputs.size(); ++k)
        if (x.inputs[k].isScalar()) seed(x.inputs[k].id, K::ExprInput, e, k);
      for (size_t k = 0; k < x.attrs.shape.size(); ++k) seed(x.attrs.shape[k], K::ExprShape, e, k);
      for (size_t k = 0; k < x.attrs.pad.size(); ++k) seed(x.attrs.pad[k], K::ExprPad, e, k);
      for (size_t k = 0; k < x.attrs.ranges.size(); ++k) {
        seed(x.attrs.ranges[k].start, K::ExprRangeStart, e, k);
        seed(x.attrs.ranges[k].stop, K::ExprRangeStop, e, k);
        seed(x.attrs.ranges[k].step, K::ExprRangeStep, e, k);
      }
      seed(x.attrs.value, K::ExprValue, e);
      seed(x.attrs.start, K::ExprStart, e);
      seed(x.attrs.step, K::ExprStep, e);
    }
    // Operands of a derived scalar appear where the derived scalar does
    // (inside the same expression string), unless declared themselves. A
    // declared scalar's site is its declaration, so its operands are in
    // that declaration's "value".
    while (!work.empty()) {
      ScalarId s = work.back();
      work.pop_back();
      const Scalar& sc = f_.scalars[s];
      if (sc.kind != ScalarKind::Derived) continue;
      ScalarSite site = scalar_site_[s];
      if (sc.decl != kNone) site = ScalarSite{K::DeclValue, sc.decl, 0};
      seed(sc.lhs, site.kind, site.a, site.b);
      if (sc.op != ScalarOp::Neg) seed(sc.rhs, site.kind, site.a, site.b);
    }
  }

  // Post-order over the scalar DAG (iterative): dangling operands, cycles,
  // integer-valuedness and constant folding, each scalar visited once.
  void checkScalars(Reporter& r) {
    const size_t n = f_.scalars.size();
    scalar_bad_.assign(n, 0);
    scalar_int_.assign(n, 0);
    scalar_const_.assign(n, std::nullopt);
    scalar_overflow_.assign(n, 0);
    scalar_reported_.assign(n, 0);
    std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
    scalarWalk(state, r);
  }

  // The facts of scalars [b, e) that have no operands (symbols, inputs,
  // constants; finishScalar reads nothing else for them), marked done in
  // `state` for scalarWalk.
  void scalarLeaves(size_t b, size_t e, std::vector<uint8_t>& state, Reporter& r) {
    for (size_t i = b; i < e; ++i) {
      if (f_.scalars[i].kind == ScalarKind::Derived) continue;
      finishScalar(static_cast<ScalarId>(i), r);
      state[i] = 2;
    }
  }

  // The walk of checkScalars over the scalars not done in `state`.
  void scalarWalk(std::vector<uint8_t>& state, Reporter& r) {
    const size_t n = f_.scalars.size();
    auto operands = [&](ScalarId s, ScalarId out[2]) -> int {
      const Scalar& sc = f_.scalars[s];
      if (sc.kind != ScalarKind::Derived || sc.op == ScalarOp::Size) return 0;
      out[0] = sc.lhs;
      if (sc.op == ScalarOp::Neg) return 1;
      out[1] = sc.rhs;
      return 2;
    };
    std::vector<std::pair<ScalarId, int>> stack;
    for (ScalarId root = 0; root < n; ++root) {
      if (state[root]) continue;
      stack.push_back({root, 0});
      state[root] = 1;
      while (!stack.empty()) {
        auto& [s, next] = stack.back();
        ScalarId ops[2];
        int nops = operands(s, ops);
        if (next < nops) {
          ScalarId o = ops[next++];
          if (o == kNone || o >= n) continue;  // reported in finish()
          if (state[o] == 0) {
            state[o] = 1;
            stack.push_back({o, 0});
          } else if (state[o] == 1) {
            if (!scalar_bad_[o]) {
              r.error(DiagCode::Cycle, "scalar " + scalarDesc(o) + " is defined in terms of itself",
                      scalarPtr(o, r));
            }
            scalar_bad_[o] = 1;
            scalar_bad_[s] = 1;
          }
          continue;
        }
        finishScalar(s, r);
        state[s] = 2;
        stack.pop_back();
      }
    }
  }

  void finishScalar(ScalarId s, Reporter& r) {
    const Scalar& sc = f_.scalars[s];
    const bool int_type = isIntegral(sc.dtype);
    switch (sc.kind) {
      case ScalarKind::Symbol:
      case ScalarKind::Input: scalar_int_[s] = int_type; return;
      case ScalarKind::Constant:
        scalar_int_[s] = int_type && sc.value.kind == ConstValue::Kind::Int;
        if (sc.value.kind == ConstValue::Kind::Int) scalar_const_[s] = sc.value.i;
        return;
      case ScalarKind::Derived: break;
    }
    if (sc.op == ScalarOp::Size) {
      if (!tensorValid(sc.size_of)) {
        r.error(DiagCode::DanglingTensor, "size() names a tensor that does not exist", scalarPtr(s, r));
        scalar_bad_[s] = 1;
      } else if (sc.size_dim < 0 ||
                 static_cast<size_t>(sc.size_dim) >= f_.tensors[sc.size_of].logical.size()) {
        r.error(DiagCode::DanglingAxis,
                "size(" + tname(sc.size_of) + ", " + std::to_string(sc.size_dim) + ") names an axis " +
                    tname(sc.size_of) + " does not have (it has " +
                    num(f_.tensors[sc.size_of].logical.size()) + ")",
                scalarPtr(s, r));
        scalar_bad_[s] = 1;
      }
      scalar_int_[s] = !scalar_bad_[s];
      return;
    }
    ScalarId ops[2] = {sc.lhs, sc.rhs};
    int nops = sc.op == ScalarOp::Neg ? 1 : 2;
    bool all_int = int_type;
    std::optional<int64_t> v[2];
    for (int k = 0; k < nops; ++k) {
      ScalarId o = ops[k];
      if (o == kNone || o >= f_.scalars.size()) {
        if (!scalar_bad_[s])
          r.error(DiagCode::DanglingScalar, "a scalar expression names an operand that does not exist",
                  scalarPtr(s, r));
        scalar_bad_[s] = 1;
        return;
      }
      if (scalar_bad_[o]) scalar_bad_[s] = 1;
      if (scalar_overflow_[o]) scalar_overflow_[s] = 1;
      all_int = all_int && scalar_int_[o];
      v[k] = scalar_const_[o];
    }
    scalar_int_[s] = all_int;
    if (!all_int || !v[0] || (nops == 2 && !v[1])) return;
    std::optional<int64_t> folded;
    switch (sc.op) {
      case ScalarOp::Add: folded = checkedAdd(*v[0], *v[1]); break;
      case ScalarOp::Sub: folded = checkedSub(*v[0], *v[1]); break;
      case ScalarOp::Mul: folded = checkedMul(*v[0], *v[1]); break;
      case ScalarOp::Div: folded = checkedDiv(*v[0], *v[1]); break;
      case ScalarOp::Mod: folded = checkedMod(*v[0], *v[1]); break;
      case ScalarOp::CeilDiv: folded = checkedCeilDiv(*v[0], *v[1]); break;
      case ScalarOp::Max: folded = std::max(*v[0], *v[1]); break;
      case ScalarOp::Min: folded = std::min(*v[0], *v[1]); break;
      case ScalarOp::Neg: folded = checkedSub(0, *v[0]); break;
      default: return;
    }
    // Overflow / division by zero: not constant here; extents report it
    // (checkExtent), other scalars are left to the evaluators.
    scalar_const_[s] = folded;
    if (!folded) scalar_overflow_[s] = 1;
  }

  // ------------------------------------------------------------ names
  // Tensors and named scalars share one namespace: expr operands are
  // resolved by name among both. `first` holds the first definition per
  // name: a tensor (its id) or a scalar (id | kScalarBit).
  static constexpr uint32_t kScalarBit = 0x80000000u;

  void checkNames(Reporter& r) {
    std::vector<uint32_t> first(f_.names.size(), kNone);
    checkNames(0, f_.tensors.size(), false, first, r);
    checkNames(0, f_.scalars.size(), true, first, r);
  }

  // The names of tensors [b, e), or of scalars [b, e).
  void checkNames(size_t b, size_t e, bool scalars, std::vector<uint32_t>& first, Reporter& r) {
    auto ptrOf = [&](uint32_t def) {
      if (!(def & kScalarBit)) return tp(def) + "/name";
      ScalarId s = def & ~kScalarBit;
      return f_.scalars[s].decl != kNone ? "/scalars/" + num(f_.scalars[s].decl) + "/name" : scalarPtr(s, r);
    };
    for (size_t i = b; i < e; ++i) {
      const NameId n = scalars ? f_.scalars[i].name : f_.tensors[i].name;
      if (n == kNoName) continue;
      const uint32_t def = scalars ? static_cast<uint32_t>(i) | kScalarBit : static_cast<uint32_t>(i);
      if (n >= first.size()) {
        if (r.speculative()) {
          r.undecided();
          continue;
        }
        first.resize(size_t{n} + 1, kNone);
      }
      const uint32_t prev = claim(first[n], def, r);
      if (prev == kNone) continue;
      r.error(DiagCode::DuplicateName, "the name " + std::string(f_.names.str(n)) + " is defined twice",
              ptrOf(def))
          .note("first defined here", r.at(ptrOf(prev)));
    }
  }

  // ------------------------------------------------------------ axis fields
  // A scalar whose finding is not repeated. Speculative checks leave the
  // shared flags alone (their findings are dropped).
  void markReported(ScalarId s, Reporter& r) {
    if (!r.speculative()) scalar_reported_[s] = 1;
  }

  void checkExtent(AxisId a, ScalarId s, const char* field, Reporter& r) {
    auto ptr = [&] { return axisPtr(a) + "/" + field; };
    const bool expanded = std::string_view(field) == "expanded";
    if (s == kNone || s >= f_.scalars.size()) {
      if (s == kNone && expanded) return;
      r.error(DiagCode::BadExtent,
              "axis " + axisDesc(a) + " has no " + (expanded ? "expanded extent" : "extent"), ptr());
      return;
    }
    if (scalar_bad_[s] || scalar_reported_[s]) return;
    const Scalar& sc = f_.scalars[s];
    auto noteDecl = [&](Diagnostic& d) {
      if (sc.decl != kNone) d.note(scalarDesc(s) + " is declared here", r.at("/scalars/" + num(sc.decl)));
    };
    if (!scalar_int_[s]) {
      markReported(s, r);
      noteDecl(r.error(DiagCode::BadExtent,
                       "the " + std::string(expanded ? "expanded extent" : "extent") + " of axis " +
                           axisDesc(a) + " is not an integer (" + scalarDesc(s) + " has dtype " +
                           std::string(dtypeName(sc.dtype)) + ")",
                       ptr()));
      return;
    }
    if (scalar_overflow_[s]) {
      markReported(s, r);
      noteDecl(r.error(DiagCode::NumberOutOfRange,
                       "the " + std::string(expanded ? "expanded extent" : "extent") + " of axis " +
                           axisDesc(a) + " is a constant expression that overflows int64 or divides by zero",
                       ptr()));
      return;
    }
    if (scalar_const_[s] && *scalar_const_[s] < 0) {
      markReported(s, r);
      noteDecl(r.error(DiagCode::NegativeExtent,
                       "axis " + axisDesc(a) + " has the negative " +
                           (expanded ? "expanded extent " : "extent ") + std::to_string(*scalar_const_[s]),
                       ptr()));
    }
  }

  // The first axis per number is found in a flat table when the numbers
  // are dense (they are in canonical repros), in a hash map otherwise.
  bool axisNumbersDense() const { return max_axis_number_ <= 2 * f_.axes.size() + 1024; }

  void checkAxes(Reporter& r) {
    if (axisNumbersDense()) {
      std::vector<AxisId> first(size_t{max_axis_number_} + 1, kNone);
      checkAxes(0, f_.axes.size(), first, r);
      return;
    }
    std::unordered_map<uint32_t, AxisId> first;
    for (AxisId a = 0; a < f_.axes.size(); ++a)
      if (axis_owner_[a] != kNone) checkAxis(a, first.emplace(f_.axes[a].number, a).first->second, r);
  }

  // checkAxes for axes [b, e) when the numbers are dense: `first_of_number`
  // holds the first axis of each number.
  void checkAxes(size_t b, size_t e, std::vector<AxisId>& first_of_number, Reporter& r) {
    for (size_t i = b; i < e; ++i) {
      const AxisId a = static_cast<AxisId>(i);
      if (axis_owner_[a] == kNone) continue;  // not part of any tensor
      const AxisId first = claim(first_of_number[f_.axes[a].number], a, r);
      checkAxis(a, first == kNone ? a : first, r);
    }
  }

  // Axis a, owned by a tensor, whose number `first` used first.
  void checkAxis(AxisId a, AxisId first, Reporter& r) {
    if (first != a) {
      r.error(DiagCode::DuplicateAxisNumber,
              "axis number " + num(f_.axes[a].number) + " is used by " + tname(axis_owner_[a]) + " and " +
                  tname(axis_owner_[first]),
              axisPtr(a) + "/id")
          .note("first used here", r.at(axisPtr(first) + "/id"));
    }
    checkExtent(a, f_.axes[a].extent, "extent", r);
    checkExtent(a, f_.axes[a].expanded, "expanded", r);
  }

  // ------------------------------------------------------------ tensor sizes
  // The product of a tensor's constant logical extents must fit int64 (the
  // executors and nvFuser compute element counts in int64).
  void checkTensorSizes(Reporter& r) { checkTensorSizes(0, f_.tensors.size(), r); }
  // checkTensorSizes for tensors [b, e).
  void checkTensorSizes(size_t b, size_t e, Reporter& r) {
    for (size_t t = b; t < e; ++t) checkTensorSize(static_cast<TensorId>(t), r);
  }
  void checkTensorSize(TensorId t, Reporter& r) {
    if (!tensor_ok_[t]) return;
    const std::vector<AxisId>& dom = f_.tensors[t].logical;
    int64_t product = 1;
    for (size_t j = 0; j < dom.size(); ++j) {
      if (dom[j] >= f_.axes.size()) break;
      ScalarId e = f_.axes[dom[j]].extent;
      if (e == kNone || e >= f_.scalars.size() || !scalar_const_[e] || *scalar_const_[e] < 0) continue;
      auto prod = checkedMul(product, *scalar_const_[e]);
      if (!prod) {
        r.error(DiagCode::NumberOutOfRange,
                "the constant extents of " + tname(t) + " multiply beyond int64 at axis " + axisDesc(dom[j]),
                axisPtr(dom[j]) + "/extent");
        break;
      }
      product = *prod;
    }
  }

  // ------------------------------------------------------------ tensor domains
  void checkTensorDomains(Reporter& r) {
    std::vector<uint32_t> stamp(f_.axes.size(), kNone);
    checkTensorDomains(0, f_.tensors.size(), stamp, r);
  }

  // checkTensorDomains for tensors [b, e); `stamp` has a slot per axis.
  void checkTensorDomains(size_t b, size_t e, std::vector<uint32_t>& stamp, Reporter& r) {
    uint32_t cur = 0;
    for (size_t t = b; t < e; ++t) checkTensorDomain(static_cast<TensorId>(t), stamp, cur, r);
  }

  // `stamp` marks axes per domain with the value `cur` is advanced to; only
  // the axes of `t` are read or written.
  void checkTensorDomain(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r) {
    const Tensor& tv = f_.tensors[t];
    if (tv.mesh != kNone && tv.mesh >= f_.meshes.size()) {
      r.error(DiagCode::DanglingMesh,
              tname(t) + " names mesh " + num(tv.mesh) + " but the repro has " + num(f_.meshes.size()) +
                  (f_.meshes.size() == 1 ? " mesh" : " meshes"),
              tp(t) + "/mesh");
    }
    if (!tensor_ok_[t]) return;
    // Duplicates inside one domain.
    auto noDup = [&](const std::vector<AxisId>& dom, const char* name) {
      ++cur;
      for (size_t j = 0; j < dom.size(); ++j) {
        if (stamp[dom[j]] == cur) {
          r.error(DiagCode::DanglingAxis,
                  tname(t) + " lists axis " + axisDesc(dom[j]) + " twice in its " + name,
                  tp(t) + "/" + name + "/" + num(j));
          tensor_ok_[t] = 0;
        }
        stamp[dom[j]] = cur;
      }
    };
    noDup(tv.root, "root");
    noDup(tv.logical, "logical");
    noDup(tv.allocation, "allocation");
    noDup(tv.loop, "loop");
    if (!tensor_ok_[t]) return;
    // DID axes need a mesh with a matching axis (one report per tensor).
    bool did_reported = false;
    auto didCheck = [&](const std::vector<AxisId>& dom, const char* name) {
      for (size_t j = 0; j < dom.size() && !did_reported; ++j) {
        const Axis& ax = f_.axes[dom[j]];
        if (!isDeviceDim(ax.parallel)) continue;
        auto ptr = [&] { return tp(t) + "/" + name + "/" + num(j); };  // for a diagnostic only
        if (tv.mesh == kNone) {
          r.error(DiagCode::DidWithoutMesh,
                  tname(t) + " has the " + std::string(parallelTypeName(ax.parallel)) + " axis " +
                      axisDesc(dom[j]) + " but no device mesh",
                  ptr());
          did_reported = true;
        } else if (tv.mesh < f_.meshes.size() && !f_.meshes[tv.mesh].devices.empty() &&
                   !f_.meshes[tv.mesh].shape.empty() && f_.meshes[tv.mesh].sizeFor(ax.parallel) < 0) {
          r.error(DiagCode::DidWithoutMesh,
                  tname(t) + " has the " + std::string(parallelTypeName(ax.parallel)) + " axis " +
                      axisDesc(dom[j]) + " but its mesh " + num(tv.mesh) + " has only " +
                      num(f_.meshes[tv.mesh].shape.size()) + " dimension(s)",
                  ptr())
              .note("the mesh is here", r.at("/meshes/" + num(tv.mesh)));
          did_reported = true;
        }
      }
    };
    didCheck(tv.root, "root");
    didCheck(tv.logical, "logical");
    didCheck(tv.allocation, "allocation");
    didCheck(tv.loop, "loop");
    // Contiguity: aligned with allocation (or logical), null exactly on Broadcast.
    const auto& alloc = tv.allocationDomain();
    const char* alloc_name = tv.allocation.empty() ? "logical" : "allocation";
    if (!tv.contiguity.empty()) {
      if (tv.contiguity.size() != alloc.size()) {
        r.error(DiagCode::BadContiguity,
                tname(t) + " has " + num(tv.contiguity.size()) + " contiguity entries but its " + alloc_name +
                    " domain has " + num(alloc.size()) + " axes",
                tp(t) + "/contiguity");
      } else {
        for (size_t j = 0; j < alloc.size(); ++j) {
          bool bcast = f_.axes[alloc[j]].iter == IterType::Broadcast;
          if (bcast && tv.contiguity[j].has_value())
            r.error(
                DiagCode::BadContiguity,
                "contiguity of broadcast axis " + axisDesc(alloc[j]) + " of " + tname(t) + " must be null",
                tp(t) + "/contiguity/" + num(j));
          else if (!bcast && !tv.contiguity[j].has_value())
            r.error(DiagCode::BadContiguity,
                    "contiguity of axis " + axisDesc(alloc[j]) + " of " + tname(t) +
                        " is null, but only broadcast axes have null contiguity",
                    tp(t) + "/contiguity/" + num(j));
        }
      }
    }
    checkTransforms(t, stamp, cur, r);
  }

  void checkTransforms(TensorId t, std::vector<uint32_t>& stamp, uint32_t& cur, Reporter& r) {
    const Tensor& tv = f_.tensors[t];
    if (tv.transforms.empty()) return;
    // stamp == known: root/logical or an earlier output; consumed tracks inputs.
    const uint32_t known = ++cur;
    const uint32_t consumed = ++cur;
    for (AxisId a : tv.root) stamp[a] = known;
    for (AxisId a : tv.logical)
      if (tv.root.empty() || stamp[a] != known) stamp[a] = known;
    // Axes produced by a transform are not "known" before it: logical axes
    // that a root->logical transform produces are marked when produced.
    std::unordered_map<AxisId, size_t> output_of;
    for (size_t k = 0; k < tv.transforms.size(); ++k) {
      const AxisTransform& x = tv.transforms[k];
      for (AxisId o : {x.out, x.kind == AxisTransform::Kind::Split ? x.out2 : kNone})
        if (o != kNone && !output_of.emplace(o, k).second)
          r.error(DiagCode::BadTransform, "axis " + axisDesc(o) + " of " + tname(t) + " is produced twice",
                  tp(t) + "/transforms/" + num(k));
    }
    if (!tv.root.empty())
      for (AxisId a : tv.logical)
        if (output_of.count(a)) stamp[a] = 0;  // produced from root by a transform
    for (size_t k = 0; k < tv.transforms.size(); ++k) {
      const AxisTransform& x = tv.transforms[k];
      auto p = [&] { return tp(t) + "/transforms/" + num(k); };
      const bool split = x.kind == AxisTransform::Kind::Split;
      std::pair<AxisId, const char*> ins_buf[2] = {{x.in, split ? "/in" : "/outer"}, {x.in2, "/inner"}};
      const std::span<std::pair<AxisId, const char*>> ins(ins_buf, split ? 1 : 2);
      bool ok = true;
      for (auto& [a, field] : ins) {
        auto ptr = [&, field = field] { return p() + field; };
        if (stamp[a] == consumed) {
          r.error(DiagCode::BadTransform, "axis " + axisDesc(a) + " of " + tname(t) + " is transformed twice",
                  ptr());
          ok = false;
        } else if (stamp[a] != known) {
          r.error(DiagCode::BadTransform,
                  "axis " + axisDesc(a) + " of " + tname(t) +
                      " is used by a transform before it exists (not in root/logical, not an earlier output)",
                  ptr());
          ok = false;
        }
      }
      if (!split && x.in == x.in2) {
        r.error(DiagCode::BadTransform, "merge of axis " + axisDesc(x.in) + " with itself", p() + "/inner");
        ok = false;
      }
      if (split) {
        ScalarId fct = x.factor;
        if (fct == kNone || fct >= f_.scalars.size()) {
          r.error(DiagCode::BadTransform, "split of " + axisDesc(x.in) + " has no factor", p() + "/factor");
        } else if (!scalar_bad_[fct] &&
                   (!scalar_int_[fct] || (scalar_const_[fct] && *scalar_const_[fct] <= 0))) {
          r.error(DiagCode::BadTransform, "split factor " + scalarDesc(fct) + " must be a positive integer",
                  p() + "/factor");
        }
      }
      if (!ok) continue;
      for (auto& in : ins) stamp[in.first] = consumed;
      stamp[x.out] = known;
      if (split) stamp[x.out2] = known;
    }
  }

  // ------------------------------------------------------------ expr references
  void checkExprRefs(Reporter& r) {
    expr_ok_.assign(f_.exprs.size(), 1);
    checkExprRefs(0, f_.exprs.size(), r);
  }

  // checkExprRefs for exprs [b, e).
  void checkExprRefs(size_t b, size_t e, Reporter& r) {
    for (size_t x = b; x < e; ++x) checkExprRef(static_cast<ExprId>(x), r);
  }

  void checkExprRef(ExprId e, Reporter& r) {
    const Expr& x = f_.exprs[e];
    auto p = [&] { return ep(e); };
    const OpInfo& info = opInfo(x.op);
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      const ValueRef& v = x.inputs[k];
      if (v.isTensor() && !tensorValid(v.id)) {
        r.error(DiagCode::DanglingTensor, exprDesc(e) + " names a tensor that does not exist",
                p() + "/inputs/" + num(k));
        expr_ok_[e] = 0;
      } else if (v.isScalar() && (v.id == kNone || v.id >= f_.scalars.size())) {
        r.error(DiagCode::DanglingScalar, exprDesc(e) + " names a scalar that does not exist",
                p() + "/inputs/" + num(k));
        expr_ok_[e] = 0;
      }
    }
    for (size_t k = 0; k < x.outputs.size(); ++k)
      if (!tensorValid(x.outputs[k])) {
        r.error(DiagCode::DanglingTensor, exprDesc(e) + " names an output tensor that does not exist",
                p() + "/outputs/" + num(k));
        expr_ok_[e] = 0;
      }
    const int nin = static_cast<int>(x.inputs.size());
    if (nin < info.min_inputs || (info.max_inputs >= 0 && nin > info.max_inputs)) {
      std::string want = info.min_inputs == info.max_inputs ? std::to_string(info.min_inputs)
                         : info.max_inputs < 0
                             ? "at least " + std::to_string(info.min_inputs)
                             : std::to_string(info.min_inputs) + " to " + std::to_string(info.max_inputs);
      r.error(DiagCode::ArityMismatch,
              std::string(info.name) + " takes " + want + " input(s) but " + exprDesc(e) + " has " + num(nin),
              info.max_inputs >= 0 && nin > info.max_inputs ? p() + "/inputs/" + num(info.max_inputs)
                                                            : p() + "/inputs");
      expr_ok_[e] = 0;
    }
    if (static_cast<int>(x.outputs.size()) != info.num_outputs) {
      r.error(DiagCode::ArityMismatch,
              std::string(info.name) + " has " + std::to_string(info.num_outputs) + " output(s) but " +
                  exprDesc(e) + " lists " + num(x.outputs.size()),
              x.outputs.size() > static_cast<size_t>(info.num_outputs)
                  ? p() + "/outputs/" + std::to_string(info.num_outputs)
                  : p() + "/outputs");
      expr_ok_[e] = 0;
    }
    if (!expr_ok_[e]) return;
    // Which operands must be tensors.
    auto needTensor = [&](size_t k) {
      if (k < x.inputs.size() && !x.inputs[k].isTensor()) {
        r.error(DiagCode::ArityMismatch,
                "input " + num(k) + " of " + exprDesc(e) + " must be a tensor, not the scalar " +
                    scalarDesc(x.inputs[k].id),
                p() + "/inputs/" + num(k));
        expr_ok_[e] = 0;
      }
    };
    switch (info.category) {
      case OpCategory::Set:
      case OpCategory::Cast:
      case OpCategory::Unary:
      case OpCategory::Shape:
      case OpCategory::Reduction:
        if (x.op == OpKind::Cat)
          for (size_t k = 0; k < x.inputs.size(); ++k) needTensor(k);
        else
          needTensor(0);
        break;
      case OpCategory::Matmul:
        for (size_t k = 0; k < x.inputs.size(); ++k) needTensor(k);
        break;
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::Ternary: {
        bool any = false;
        for (const ValueRef& v : x.inputs) any = any || v.isTensor();
        if (!any) {
          r.error(DiagCode::ArityMismatch, exprDesc(e) + " has no tensor operand", p() + "/inputs");
          expr_ok_[e] = 0;
        }
        break;
      }
      case OpCategory::Factory: break;
    }
  }

  // ------------------------------------------------------------ definitions and uses
  void checkDefinitions(Reporter& r) {
    const size_t nt = f_.tensors.size();
    producer_.assign(nt, kNone);
    producer_slot_.assign(nt, kNone);
    input_pos_.assign(nt, kNone);
    undefined_reported_.assign(nt, 0);
    checkProducers(0, f_.exprs.size(), r);
    std::vector<char> scalar_input(f_.scalars.size(), 0);
    checkFusionInputs(0, f_.inputs.size(), scalar_input, r);
    checkUses(0, f_.exprs.size(), r);
    checkFusionOutputs(0, f_.outputs.size(), r);
  }

  // The outputs of exprs [b, e): the first producer of a tensor is its
  // definition; a second one is a finding.
  void checkProducers(size_t b, size_t e, Reporter& r) {
    for (size_t i = b; i < e; ++i) {
      const ExprId x = static_cast<ExprId>(i);
      const std::vector<TensorId>& outs = f_.exprs[x].outputs;
      for (size_t k = 0; k < outs.size(); ++k) {
        const TensorId t = outs[k];
        if (!tensorValid(t)) continue;
        const ExprId first = claim(producer_[t], x, r);
        if (first == kNone) {
          producer_slot_[t] = static_cast<uint32_t>(k);
          continue;
        }
        // The first producer's slot, found in its outputs (another thread
        // may be writing producer_slot_[t]).
        const std::vector<TensorId>& first_outs = f_.exprs[first].outputs;
        const size_t first_slot = std::find(first_outs.begin(), first_outs.end(), t) - first_outs.begin();
        r.error(DiagCode::MultipleDefinitions,
                tname(t) + " is produced by " + exprDesc(first) + " and again by " + exprDesc(x),
                ep(x) + "/outputs/" + num(k))
            .note("first definition", r.at(ep(first) + "/outputs/" + num(first_slot)));
      }
    }
  }

  // Fusion inputs [b, e): each names a tensor no expr produces, or a
  // scalar, once.
  void checkFusionInputs(size_t b, size_t e, std::vector<char>& scalar_input, Reporter& r) {
    for (size_t k = b; k < e; ++k) {
      const ValueRef& v = f_.inputs[k];
      auto ptr = [k] { return "/inputs/" + num(k); };  // for a diagnostic only
      if (v.isTensor()) {
        if (!tensorValid(v.id)) {
          r.error(DiagCode::DanglingTensor, "fusion input " + num(k) + " names a tensor that does not exist",
                  ptr());
          continue;
        }
        const uint32_t first = claim(input_pos_[v.id], static_cast<uint32_t>(k), r);
        if (first != kNone) {
          r.error(DiagCode::DuplicateInput, tname(v.id) + " is listed twice as a fusion input", ptr())
              .note("first listed here", r.at("/inputs/" + num(first)));
          continue;
        }
        if (producer_[v.id] != kNone)
          r.error(DiagCode::InputProduced,
                  tname(v.id) + " is a fusion input but " + exprDesc(producer_[v.id]) + " produces it",
                  ep(producer_[v.id]) + "/outputs/" + num(producer_slot_[v.id]))
              .note(tname(v.id) + " is declared a fusion input here", r.at(ptr()));
      } else {
        if (v.id == kNone || v.id >= f_.scalars.size()) {
          r.error(DiagCode::DanglingScalar, "fusion input " + num(k) + " names a scalar that does not exist",
                  ptr());
          continue;
        }
        if (!markOnce(scalar_input[v.id], r)) {
          r.error(DiagCode::DuplicateInput, scalarDesc(v.id) + " is listed twice as a fusion input", ptr());
          continue;
        }
      }
    }
  }

  // The tensor inputs of exprs [b, e): each is produced or a fusion input;
  // a tensor that is neither is reported at its first use. Returns whether
  // every producer of those inputs has a lower id than its consumer.
  bool checkUses(size_t b, size_t e, Reporter& r) {
    bool ordered = true;
    for (size_t i = b; i < e; ++i) {
      const ExprId x = static_cast<ExprId>(i);
      const std::vector<ValueRef>& ins = f_.exprs[x].inputs;
      for (size_t k = 0; k < ins.size(); ++k) {
        const ValueRef& v = ins[k];
        if (!v.isTensor() || !tensorValid(v.id)) continue;
        const ExprId p = producer_[v.id];
        if (p != kNone && p >= x) ordered = false;
        if (p != kNone || input_pos_[v.id] != kNone) continue;
        if (!markOnce(undefined_reported_[v.id], r)) continue;
        r.error(DiagCode::UndefinedTensor,
                exprDesc(x) + " uses " + tname(v.id) +
                    ", which no expr produces and which is not a fusion input",
                ep(x) + "/inputs/" + num(k))
            .note(tname(v.id) + " is declared here", r.at(tp(v.id)));
      }
    }
    return ordered;
  }

  // Fusion outputs [b, e): each is produced or a fusion input.
  void checkFusionOutputs(size_t b, size_t e, Reporter& r) {
    for (size_t k = b; k < e; ++k) {
      const TensorId t = f_.outputs[k];
      auto ptr = [k] { return "/outputs/" + num(k); };  // for a diagnostic only
      if (!tensorValid(t)) {
        r.error(DiagCode::DanglingTensor, "fusion output " + num(k) + " names a tensor that does not exist",
                ptr());
        continue;
      }
      if (producer_[t] != kNone || input_pos_[t] != kNone) continue;
      if (!markOnce(undefined_reported_[t], r)) continue;
      r.error(DiagCode::OutputNotProduced,
              "fusion output " + tname(t) + " is produced by no expr and is not a fusion input", ptr())
          .note(tname(t) + " is declared here", r.at(tp(t)));
    }
  }

  // ------------------------------------------------------------ cycles
  // Kahn's algorithm over exprs; what remains lies on or after a cycle.
  // Each remaining expr is then walked backwards along remaining producers
  // once: a walk that meets itself has found a new cycle (reported once),
  // a walk that meets an earlier walk is downstream of a known one.
  void checkCycles(Reporter& r) {
    const std::vector<char> done = buildOrder();
    reportCycles(done, r);
  }

  // order_ (Kahn, FIFO from id order, then what is left in id order);
  // returns which exprs Kahn's walk reached.
  std::vector<char> buildOrder() {
    const size_t ne = f_.exprs.size();
    std::vector<uint32_t> indeg(ne, 0);
    auto prodOf = [&](const ValueRef& v) -> ExprId {
      if (!v.isTensor() || !tensorValid(v.id)) return kNone;
      return producer_[v.id];
    };
    // Successor lists in one flat array (CSR), in the order a vector per
    // expr would hold them: a million small heap vectors cost more than the
    // sort itself.
    std::vector<uint32_t> succ_begin(ne + 1, 0);
    for (ExprId e = 0; e < ne; ++e)
      for (const ValueRef& v : f_.exprs[e].inputs) {
        ExprId p = prodOf(v);
        if (p == kNone) continue;
        ++indeg[e];
        ++succ_begin[p + 1];
      }
    for (size_t i = 0; i < ne; ++i) succ_begin[i + 1] += succ_begin[i];
    std::vector<ExprId> succ(succ_begin[ne]);
    {
      std::vector<uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
      for (ExprId e = 0; e < ne; ++e)
        for (const ValueRef& v : f_.exprs[e].inputs) {
          ExprId p = prodOf(v);
          if (p != kNone) succ[fill[p]++] = e;
        }
    }
    std::vector<char> done(ne, 0);
    order_.clear();
    order_.reserve(ne);
    for (ExprId e = 0; e < ne; ++e)
      if (indeg[e] == 0) order_.push_back(e);
    for (size_t head = 0; head < order_.size(); ++head) {
      ExprId e = order_[head];
      done[e] = 1;
      for (uint32_t k = succ_begin[e]; k < succ_begin[e + 1]; ++k)
        if (--indeg[succ[k]] == 0) order_.push_back(succ[k]);
    }
    for (ExprId e = 0; e < ne; ++e)
      if (!done[e]) order_.push_back(e);
    order_ready_ = true;
    return done;
  }

  void reportCycles(const std::vector<char>& done, Reporter& r) {
    const size_t ne = f_.exprs.size();
    auto prodOf = [&](const ValueRef& v) -> ExprId {
      if (!v.isTensor() || !tensorValid(v.id)) return kNone;
      return producer_[v.id];
    };
    std::vector<uint32_t> walk(ne, kNone);
    uint32_t walk_id = 0;
    for (ExprId start = 0; start < ne; ++start) {
      if (done[start] || walk[start] != kNone) continue;
      ++walk_id;
      std::vector<std::pair<ExprId, size_t>> path;  // expr, input slot taken backwards
      ExprId cur = start;
      while (cur != kNone && walk[cur] == kNone) {
        walk[cur] = walk_id;
        ExprId next = kNone;
        size_t slot = 0;
        const Expr& x = f_.exprs[cur];
        for (size_t k = 0; k < x.inputs.size(); ++k) {
          ExprId p = prodOf(x.inputs[k]);
          if (p != kNone && !done[p]) {
            next = p;
            slot = k;
            break;
          }
        }
        path.push_back({cur, slot});
        cur = next;
      }
      if (cur == kNone || walk[cur] != walk_id) continue;  // reached an older walk
      // The cycle is the suffix of `path` starting at `cur`.
      size_t from = 0;
      while (path[from].first != cur) ++from;
      auto [e0, s0] = path[from];
      const ValueRef& v0 = f_.exprs[e0].inputs[s0];
      Diagnostic& d = r.error(DiagCode::Cycle,
                              "the exprs form a cycle: " + exprDesc(e0) + " uses " + tname(v0.id) +
                                  ", which depends on " + exprDesc(e0) + "'s own output",
                              ep(e0) + "/inputs/" + num(s0));
      constexpr size_t kMaxHops = 16;
      for (size_t i = from; i < path.size(); ++i) {
        if (i - from == kMaxHops) {
          d.note("... and " + num(path.size() - i) + " more exprs on the cycle");
          break;
        }
        auto [e, s] = path[i];
        TensorId t = f_.exprs[e].inputs[s].id;
        d.note(exprDesc(e) + " uses " + tname(t) + ", produced by " + exprDesc(producer_[t]),
               r.at(ep(producer_[t]) + "/outputs/" + num(producer_slot_[t])));
      }
    }
  }

  // The per-op checks, in topological order. A large fusion is checked in
  // chunks of that order on several threads first: an op's diagnostics
  // depend only on the IR and on whether a producer already got one, so
  // when no chunk reports anything, neither would the sequential loop, and
  // that is the answer. When any chunk reports, its findings are dropped
  // and the loop runs on this thread, which orders and suppresses them
  // exactly as always (tests/io/verifier_parallel_test.cpp).
  void checkOps(Reporter& r) {
    shape_suspect_.assign(f_.tensors.size(), 0);
    dtype_suspect_.assign(f_.tensors.size(), 0);
    // Any order will do for chunks that report nothing: before the order
    // is built (runChecksInChunks), they take the exprs in id order.
    const size_t n = f_.exprs.size();
    const size_t w = std::min<size_t>(threadsFor(opts_.threads), n);
    if (w > 1 && n >= opts_.parallel_min_exprs) {
      std::atomic<bool> reported{false};
      parallelFor(w, [&](size_t k) {
        SpeculativeReporter chunk_r;
        for (size_t i = n * k / w; i < n * (k + 1) / w && !reported.load(std::memory_order_relaxed); ++i) {
          const ExprId e = order_ready_ ? order_[i] : static_cast<ExprId>(i);
          if (exprUsable(e)) {
            checkOp(f_, e, scalar_const_, chunk_r);
            if (chunk_r.found() != 0) reported = true;
          }
        }
      });
      if (opts_.stats != nullptr) {
        opts_.stats->ops_in_chunks = true;
        opts_.stats->ops_rerun = reported;
      }
      if (!reported) return;
    }
    if (!order_ready_) buildOrder();
    FollowOnFilter filter(r);
    for (ExprId e : order_)
      if (exprUsable(e)) checkOpGuarded(e, filter);
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
    checkOp(f_, e, scalar_const_, r);
    for (TensorId t : x.outputs) {
      if (r.shapeErrors()) shape_suspect_[t] = 1;
      if (r.dtypeErrors()) dtype_suspect_[t] = 1;
    }
  }

  // ------------------------------------------------------------ segmentation
  void checkSegmentation(Reporter& r) {
    if (!f_.segmentation) return;
    const Segmentation& sg = *f_.segmentation;
    const size_t ne = f_.exprs.size();
    std::vector<uint32_t> seg_of(ne, kNone);
    std::vector<uint32_t> pos_of(ne, kNone);
    bool complete = true;
    for (size_t s = 0; s < sg.segments.size(); ++s) {
      std::string sp = "/segmentation/segments/" + num(s);
      if (sg.segments[s].exprs.empty())
        r.error(DiagCode::BadSegmentation, "segment " + num(s) + " has no exprs", sp + "/exprs");
      for (size_t k = 0; k < sg.segments[s].exprs.size(); ++k) {
        ExprId e = sg.segments[s].exprs[k];
        std::string ptr = sp + "/exprs/" + num(k);
        if (e >= ne) {
          r.error(DiagCode::DanglingExpr,
                  "segment " + num(s) + " names expr " + num(e) + " but the fusion has " + num(ne) + " exprs",
                  ptr);
          complete = false;
          continue;
        }
        if (seg_of[e] != kNone) {
          r.error(DiagCode::BadSegmentation,
                  exprDesc(e) + " is in segment " + num(seg_of[e]) + " and again in segment " + num(s), ptr)
              .note("first listed here",
                    r.at("/segmentation/segments/" + num(seg_of[e]) + "/exprs/" + num(pos_of[e])));
          complete = false;
          continue;
        }
        seg_of[e] = static_cast<uint32_t>(s);
        pos_of[e] = static_cast<uint32_t>(k);
      }
    }
    std::string missing;
    size_t nmissing = 0;
    for (ExprId e = 0; e < ne; ++e)
      if (seg_of[e] == kNone) {
        if (nmissing++ < 8) missing += (missing.empty() ? "" : ", ") + num(e);
      }
    if (nmissing) {
      r.error(DiagCode::BadSegmentation,
              "the segmentation leaves " + num(nmissing) + " expr(s) in no segment: " + missing +
                  (nmissing > 8 ? ", ..." : ""),
              "/segmentation/segments");
      complete = false;
    }
    // Run order: a segment may only use tensors produced by itself or earlier segments.
    if (complete) {
      for (ExprId e = 0; e < ne; ++e) {
        const Expr& x = f_.exprs[e];
        for (size_t k = 0; k < x.inputs.size(); ++k) {
          const ValueRef& v = x.inputs[k];
          if (!v.isTensor() || !tensorValid(v.id) || producer_[v.id] == kNone) continue;
          ExprId p = producer_[v.id];
          if (seg_of[p] > seg_of[e]) {
            r.error(DiagCode::BadSegmentation,
                    "segment " + num(seg_of[e]) + " runs " + exprDesc(e) + ", which uses " + tname(v.id) +
                        ", but " + tname(v.id) + " is produced later, in segment " + num(seg_of[p]),
                    "/segmentation/segments/" + num(seg_of[e]) + "/exprs/" + num(pos_of[e]))
                .note(tname(v.id) + "'s producer is listed here",
                      r.at("/segmentation/segments/" + num(seg_of[p]) + "/exprs/" + num(pos_of[p])));
          }
        }
      }
    }
    for (size_t k = 0; k < sg.forward.size(); ++k) {
      std::string ptr = "/segmentation/forward/" + num(k);
      if (sg.forward[k].segment >= sg.segments.size())
        r.error(DiagCode::BadSegmentation,
                "forward names segment " + num(sg.forward[k].segment) + " but there are " +
                    num(sg.segments.size()) + " segments",
                ptr + "/segment");
      if (sg.forward[k].symbol == kNone || sg.forward[k].symbol >= f_.scalars.size())
        r.error(DiagCode::DanglingScalar, "forward names a scalar that does not exist", ptr + "/symbol");
    }
  }

  // ------------------------------------------------------------ concrete inputs
  void checkConcreteInputs(Reporter& r) {
    std::vector<uint32_t> tensor_seen(f_.tensors.size(), kNone);
    std::vector<uint32_t> scalar_seen(f_.scalars.size(), kNone);
    checkConcreteInputs(0, f_.concrete_inputs.size(), tensor_seen, scalar_seen, r);
  }

  // Concrete inputs [b, e); `*_seen` hold the first to describe each tensor
  // or scalar.
  void checkConcreteInputs(size_t b, size_t e, std::vector<uint32_t>& tensor_seen,
                           std::vector<uint32_t>& scalar_seen, Reporter& r) {
    for (size_t k = b; k < e; ++k) {
      const ConcreteInput& ci = f_.concrete_inputs[k];
      // Built only for a diagnostic: a million-expr repro has ~300k inputs.
      auto p = [k] { return "/concrete_inputs/" + num(k); };
      if (ci.value.isScalar()) {
        if (ci.value.id == kNone || ci.value.id >= f_.scalars.size()) {
          r.error(DiagCode::DanglingScalar,
                  "concrete input " + num(k) + " names a scalar that does not exist", p() + "/input");
          continue;
        }
        if (f_.scalars[ci.value.id].kind != ScalarKind::Input) {
          r.error(DiagCode::BadConcreteInput,
                  "concrete input " + num(k) + " describes " + scalarDesc(ci.value.id) +
                      ", which is not a fusion input",
                  p() + "/input");
          continue;
        }
        const uint32_t first = claim(scalar_seen[ci.value.id], static_cast<uint32_t>(k), r);
        if (first != kNone) {
          r.error(DiagCode::BadConcreteInput, scalarDesc(ci.value.id) + " is described twice", p() + "/input")
              .note("first described here", r.at("/concrete_inputs/" + num(first)));
          continue;
        }
        if (!ci.scalar)
          r.error(DiagCode::BadConcreteInput,
                  "concrete input " + num(k) + " for scalar " + scalarDesc(ci.value.id) + " has no \"value\"",
                  p());
        continue;
      }
      TensorId t = ci.value.id;
      if (!tensorValid(t)) {
        r.error(DiagCode::DanglingTensor, "concrete input " + num(k) + " names a tensor that does not exist",
                p() + "/input");
        continue;
      }
      if (input_pos_[t] == kNone) {
        if (undefined_reported_[t]) continue;  // same root cause as the FC0108 / FC0107 already reported
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " describes " + tname(t) + ", which is not a fusion input",
                p() + "/input");
        continue;
      }
      const uint32_t first = claim(tensor_seen[t], static_cast<uint32_t>(k), r);
      if (first != kNone) {
        r.error(DiagCode::BadConcreteInput, tname(t) + " is described twice", p() + "/input")
            .note("first described here", r.at("/concrete_inputs/" + num(first)));
        continue;
      }
      if (!tensor_ok_[t]) continue;
      const size_t rank = f_.nonReductionRank(t);
      if (ci.shape.size() != rank) {
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " gives " + tname(t) + " " + num(ci.shape.size()) +
                    " sizes but " + tname(t) + " has " + num(rank) + " non-Reduction logical axes",
                p() + "/shape")
            .note(tname(t) + " is declared here", r.at(tp(t) + "/logical"));
        continue;
      }
      int64_t elements = 1;
      for (size_t j = 0; j < ci.shape.size(); ++j) {
        if (ci.shape[j] < 0) {
          r.error(DiagCode::BadConcreteInput,
                  "concrete input " + num(k) + " gives " + tname(t) + " the negative size " +
                      std::to_string(ci.shape[j]),
                  p() + "/shape/" + num(j));
          continue;
        }
        if (elements < 0) continue;  // the overflow is reported once
        auto prod = checkedMul(elements, ci.shape[j]);
        if (!prod) {
          r.error(DiagCode::BadConcreteInput,
                  "concrete input " + num(k) + " gives " + tname(t) + " sizes whose product overflows int64",
                  p() + "/shape/" + num(j));
          elements = -1;
          continue;
        }
        elements = *prod;
      }
      if (!ci.strides.empty() && ci.strides.size() != rank)
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " gives " + tname(t) + " " + num(ci.strides.size()) +
                    " strides but " + num(rank) + " sizes",
                p() + "/strides");
    }
  }

  // Whether checkConcreteInputs would report nothing, decided in chunks on
  // every thread (a million-expr repro has ~300k concrete inputs).
  bool concreteInputsClean() {
    const size_t w = threadsFor(opts_.threads);
    std::vector<uint32_t> tensor_seen, scalar_seen;
    const std::function<void()> fills[] = {[&] { tensor_seen.assign(f_.tensors.size(), kNone); },
                                           [&] { scalar_seen.assign(f_.scalars.size(), kNone); }};
    fillConcurrently(fills, w);
    return runStage(w, {{f_.concrete_inputs.size(), [&](size_t b, size_t e, Reporter& r) {
                           checkConcreteInputs(b, e, tensor_seen, scalar_seen, r);
                         }}});
  }
};

}  // namespace
}  // namespace verify

bool verifyFusion(const Fusion& f, DiagnosticSink& sink, const std::string& file, const VerifyOptions& opts) {
  verify::Verifier v(f, sink, file, opts);
  return v.run();
}

}  // namespace fc
