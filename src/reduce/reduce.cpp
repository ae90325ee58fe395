#include "reduce/reduce.h"

#include <chrono>
#include <exception>
#include <unordered_map>

#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "reduce/candidates.h"
#include "reduce/ddmin.h"

namespace fc {

std::string_view stopReasonName(StopReason r) {
  switch (r) {
    case StopReason::Fixpoint: return "fixpoint";
    case StopReason::MaxSteps: return "max-steps";
    case StopReason::TimeLimit: return "time-limit";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::NotInteresting: return "not-interesting";
  }
  return "?";
}

FusionSize measureFusion(const Fusion& f, const Profile& profile) {
  FusionSize s;
  s.exprs = f.exprs.size();
  s.tensors = f.tensors.size();
  s.segments = segmentsOf(f, profile).size();
  s.inputs = f.inputs.size();
  s.outputs = f.outputs.size();
  s.scalars = f.scalars.size();
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

class Reducer {
 public:
  Reducer(const Fusion& f, const ReduceProperty& p, const ReduceOptions& o)
      : input_(f), prop_(p), opts_(o), profile_(o.profile ? *o.profile : defaultProfile(f)) {}

  ReduceResult run() {
    start_ = Clock::now();
    ReduceResult r;
    r.before = measureFusion(input_, profile_);
    best_ = input_;
    best_.rebuildUses();
    best_text_ = writeFusion(best_);
    if (opts_.check_input) {
      ++stats_.property_calls;
      if (!callProperty(best_)) {
        return finish(std::move(r), stop_.value_or(StopReason::NotInteresting));
      }
    }
    while (!stop_) {
      ++stats_.rounds;
      bool any = false;
      any |= phaseSegments();
      if (!stop_) any |= phaseExprs();
      if (!stop_) any |= phaseOutputs();
      if (!stop_) any |= phaseInputs();
      if (!stop_ && opts_.shrink_sizes) any |= phaseSizes();
      if (!stop_ && opts_.shrink_meshes) any |= phaseMeshes();
      if (!stop_ && !any) stop_ = StopReason::Fixpoint;
    }
    return finish(std::move(r), *stop_);
  }

 private:
  const Fusion& input_;
  const ReduceProperty& prop_;
  const ReduceOptions& opts_;
  Profile profile_;
  Clock::time_point start_;
  Fusion best_;
  std::string best_text_;
  ReduceStats stats_;
  std::optional<StopReason> stop_;
  std::unordered_map<size_t, bool> cache_;  // hash of the candidate's text -> verdict

  ReduceResult finish(ReduceResult r, StopReason why) {
    stats_.seconds = elapsed();
    r.stop = why;
    r.stats = stats_;
    r.after = measureFusion(best_, profile_);
    r.best = std::move(best_);
    return r;
  }

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  bool interrupted() const { return opts_.interrupt && opts_.interrupt->load(); }

  bool stopped() {
    if (stop_) return true;
    if (interrupted())
      stop_ = StopReason::Interrupted;
    else if (opts_.max_steps && stats_.steps >= opts_.max_steps)
      stop_ = StopReason::MaxSteps;
    else if (opts_.time_limit_s > 0 && elapsed() >= opts_.time_limit_s)
      stop_ = StopReason::TimeLimit;
    return stop_.has_value();
  }

  bool callProperty(const Fusion& g) {
    bool ok = false;
    try {
      ok = prop_(g);
    } catch (const std::exception&) {
      ok = false;  // a property that throws on a candidate: not interesting
    }
    if (interrupted()) {  // a verdict cut short by SIGINT is not trusted
      stop_ = StopReason::Interrupted;
      return false;
    }
    return ok;
  }

  void report(const std::string& what, const char* verdict, bool accepted) {
    if (!opts_.on_progress) return;
    stats_.seconds = elapsed();
    ReduceEvent ev;
    ev.stats = &stats_;
    ev.best = &best_;
    ev.accepted = accepted;
    ev.what = what;
    ev.verdict = verdict;
    opts_.on_progress(ev);
  }

  // Verifies, asks the property, and makes the candidate the best when it
  // is still interesting.
  bool tryCandidate(std::optional<Fusion> cand, const std::string& what) {
    if (stopped()) return false;
    ++stats_.steps;
    if (!cand) {
      ++stats_.invalid;
      report(what, "invalid", false);
      return false;
    }
    std::string text = writeFusion(*cand);
    size_t h = std::hash<std::string>{}(text);
    if (text == best_text_ || cache_.count(h)) {
      ++stats_.cache_hits;
      report(what, "cached", false);
      return false;
    }
    DiagnosticSink sink;
    SourceText src("candidate.json", text);
    std::optional<Fusion> g = readFusion(src, sink);
    if (!g || !verifyFusion(*g, sink, "candidate.json")) {
      ++stats_.invalid;
      cache_[h] = false;
      report(what, "invalid", false);
      return false;
    }
    g->rebuildUses();
    ++stats_.property_calls;
    bool ok = callProperty(*g);
    if (stop_ == StopReason::Interrupted) return false;
    cache_[h] = ok;
    if (!ok) {
      report(what, "not interesting", false);
      return false;
    }
    best_ = std::move(*g);
    best_text_ = std::move(text);
    ++stats_.improvements;
    stats_.seconds = elapsed();
    if (opts_.on_improvement) opts_.on_improvement(best_, stats_);
    report(what, "accepted", true);
    return true;
  }

  // ddmin over n units of the current best; make(keep) says what to drop.
  bool shrinkPhase(const char* phase, size_t n, const std::function<Shrink(const std::vector<size_t>&)>& make,
                   const char* unit) {
    stats_.phase = phase;
    if (n == 0 || stopped()) return false;
    const Fusion f0 = best_;
    const LocalShapes shapes = localShapesOf(f0, profile_);
    uint64_t before = stats_.improvements;
    ddmin(
        n,
        [&](const std::vector<size_t>& keep) {
          std::string what = "keep " + std::to_string(keep.size()) + " of " + std::to_string(n) + " " + unit;
          return tryCandidate(applyShrink(f0, make(keep), shapes), what);
        },
        [&] { return stopped(); });
    return stats_.improvements != before;
  }

  static std::vector<uint8_t> complement(size_t n, const std::vector<size_t>& keep) {
    std::vector<uint8_t> drop(n, 1);
    for (size_t k : keep) drop[k] = 0;
    return drop;
  }

  bool phaseSegments() {
    std::vector<std::vector<ExprId>> segs = segmentsOf(best_, profile_);
    if (segs.size() <= 1) return false;
    const size_t ne = best_.exprs.size();
    return shrinkPhase(
        "segments", segs.size(),
        [&](const std::vector<size_t>& keep) {
          Shrink s;
          s.drop_expr.assign(ne, 1);
          for (size_t k : keep)
            for (ExprId e : segs[k])
              if (e < ne) s.drop_expr[e] = 0;
          return s;
        },
        "segments");
  }

  // ddmin over every element of one Shrink field (exprs, outputs).
  bool dropPhase(const char* phase, size_t n, std::vector<uint8_t> Shrink::*field) {
    return shrinkPhase(
        phase, n,
        [&](const std::vector<size_t>& keep) {
          Shrink s;
          s.*field = complement(n, keep);
          return s;
        },
        phase);
  }

  bool phaseExprs() { return dropPhase("exprs", best_.exprs.size(), &Shrink::drop_expr); }

  bool phaseOutputs() {
    return best_.outputs.size() > 1 && dropPhase("outputs", best_.outputs.size(), &Shrink::drop_output);
  }

  bool phaseInputs() {
    std::vector<size_t> idx = droppableInputs(best_);
    const size_t ni = best_.inputs.size();
    return shrinkPhase(
        "inputs", idx.size(),
        [&](const std::vector<size_t>& keep) {
          Shrink s;
          s.drop_input.assign(ni, 0);
          for (size_t i : idx) s.drop_input[i] = 1;
          for (size_t k : keep) s.drop_input[idx[k]] = 0;
          return s;
        },
        "droppable inputs");
  }

  bool phaseSizes() {
    stats_.phase = "sizes";
    bool any = false;
    while (!stopped()) {
      std::optional<Fusion> c = halveConcreteSizes(best_);
      if (!c || !tryCandidate(std::move(c), "halve concrete sizes")) break;
      any = true;
    }
    return any;
  }

  bool phaseMeshes() {
    stats_.phase = "meshes";
    bool any = false;
    for (MeshId m = 0; m < best_.meshes.size() && !stopped(); ++m)
      while (!stopped()) {
        std::optional<Fusion> c = shrinkMesh(best_, m);
        if (!c || !tryCandidate(std::move(c), "halve mesh " + std::to_string(m))) break;
        any = true;
      }
    return any;
  }
};

}  // namespace

ReduceResult reduce(const Fusion& f, const ReduceProperty& property, const ReduceOptions& opts) {
  return Reducer(f, property, opts).run();
}

}  // namespace fc
