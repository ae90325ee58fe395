// Differential checks and the fuzzing loop (see difftest.h).
#include "driver/difftest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "difftest/random_fusion.h"
#include "driver/run.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "support/internal_error.h"
#if __has_include("reduce/reduce.h")
#include "reduce/reduce.h"
#define FC_DIFFTEST_HAVE_REDUCER 1
#endif

namespace fc::difftest {
namespace {

std::string codeId(DiagCode c) { return std::string(diagCodeInfo(c).id); }

// Diagnostics the analysis pipeline itself predicts (FC03xx): an execution
// that stops with only these stopped where `check` said it would.
bool isPipelineCode(DiagCode c) { return codeId(c).rfind("FC03", 0) == 0; }

std::string firstError(const std::vector<Diagnostic>& ds, bool skip_pipeline) {
  for (const Diagnostic& d : ds)
    if (d.severity == Severity::Error && !(skip_pipeline && isPipelineCode(d.code)))
      return codeId(d.code) + ": " + d.message;
  return "(no diagnostic)";
}

// A run whose only failures are rounding: every failing output within
// kRoundingUlps units of roundoff of its path dtype at the output's scale
// (max(S, 1)) of the faithful reference. The faithful reference rounds once
// where the simulated ring rounds per hop and a reduction accumulates in
// another order; a cancellation after that (x + c - c) turns the 1-ulp
// difference of a large intermediate into an error that the output-scale
// tolerance of docs/numerics.md does not allow. No wrong value: a dropped
// collective, a wrong axis or a wrong boundary dtype is off by far more.
constexpr double kRoundingUlps = 8;
double unitRoundoff(DType d) {
  switch (d) {
    case DType::Half: return 0x1p-10;
    case DType::BFloat16: return 0x1p-7;
    case DType::Float: return 0x1p-23;
    case DType::Float8_e4m3fn: return 0x1p-3;
    case DType::Float8_e5m2: return 0x1p-2;
    default: return 0x1p-52;
  }
}
bool roundingOnly(const RunResult& r) {
  bool any = false;
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Severity::Error && d.code != DiagCode::NumericsMismatch) return false;
  for (const exec::Comparison& c : r.outputs) {
    if (c.passed()) continue;
    if (!c.shape_match || !c.replica_note.empty() || !std::isfinite(c.max_abs) ||
        c.max_abs > kRoundingUlps * unitRoundoff(c.path_dtype) * std::max(c.scale, 1.0))
      return false;
    any = true;
  }
  return any;
}

bool onlyPipelineErrors(const std::vector<Diagnostic>& ds) {
  return std::all_of(ds.begin(), ds.end(), [](const Diagnostic& d) {
    return d.severity != Severity::Error || isPipelineCode(d.code);
  });
}

// Every error of `after` other than FC0301 has the code of an error of
// `before`, and none is FC0301.
bool predictedBefore(const std::vector<Diagnostic>& after, const std::vector<Diagnostic>& before) {
  for (const Diagnostic& d : after) {
    if (d.severity != Severity::Error) continue;
    if (d.code == DiagCode::UnboundExtent) return false;
    if (std::none_of(before.begin(), before.end(), [&](const Diagnostic& b) { return b.code == d.code; }))
      return false;
  }
  return true;
}

struct Checker {
  const Fusion& f;
  CheckResult res;
  const std::vector<std::string>& points;

  void find(const std::string& check, const std::string& era, const std::string& msg) {
    Finding x;
    x.check = check;
    x.era = era;
    x.message = msg;
    res.findings.push_back(std::move(x));
  }

  void roundTrip() {
    DiagnosticSink vs;
    if (!verifyFusion(f, vs)) {
      find("verify", "", "the generated fusion does not verify: " + firstError(vs.all(), false));
      return;
    }
    std::string a = writeFusion(f);
    DiagnosticSink sink;
    SourceText src("fuzz.json", a);
    auto g = readFusion(src, sink);
    if (!g) {
      find("roundtrip", "", "the canonical JSON does not load back: " + firstError(sink.all(), false));
      return;
    }
    DiagnosticSink vs2;
    if (!verifyFusion(*g, vs2)) {
      find("roundtrip", "", "the reloaded fusion does not verify: " + firstError(vs2.all(), false));
      return;
    }
    std::string b = writeFusion(*g);
    if (a != b) {
      size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      find("roundtrip", "",
           "write -> read -> write is not byte-identical (first difference at byte " + std::to_string(i) +
               ")");
    }
    for (PrintStyle st : {PrintStyle::Y2024, PrintStyle::Head}) {
      std::string p1 = printFusionMath(f, st), p2 = printFusionMath(*g, st), p3 = printFusionMath(f, st);
      if (p1 != p2 || p1 != p3)
        find("print", "",
             std::string("the printer (style ") + (st == PrintStyle::Head ? "head" : "2024") +
                 ") prints the reloaded fusion differently");
    }
  }

  void point(size_t k) {
    const std::string& en = points[k];
    EraTally& t = res.eras[k];
    // A generated fusion records no origin. With meshes, the 2024 points
    // replay the path on which the extent failures of that time were
    // reached (the C++ MultiDeviceExecutor with a FusionExecutorCache per
    // segment); otherwise, and at head, the point's default path.
    const bool mde_fec = !f.origin && isMultiDevice(f) && en != "head";
    auto prof = resolveProfile(ProfileRequest{en, mde_fec ? "cpp" : "", mde_fec ? "mde-fec" : ""}, f);
    if (std::holds_alternative<ProfileError>(prof)) {
      ++t.no_path;  // the path this fusion takes did not exist at that point
      return;
    }
    const Profile& profile = std::get<Profile>(prof);
    PipelineOptions po;
    po.profile = profile;
    PipelineResult pr = runPipeline(f, po);
    if (pr.verdict() == Verdict::NotDecided) {
      ++t.not_decided;
      return;
    }
    // The faithful reference rounds every tensor to its dtype as the
    // segmented program does: what remains is accumulation order, so any
    // mismatch is a wrong program, not the precision the program asked for
    // (a chain of Half ops legitimately drifts from the exact reference).
    RunOptions ro;
    ro.profile = profile;
    ro.reference = ReferenceKind::Faithful;
    RunResult r = runFusion(f, ro);
    res.outputs_compared += r.outputs.size();
    if (r.passed || roundingOnly(r)) {
      ++t.run;
      t.rounding += !r.passed;
      strip(k, profile, pr);
      return;
    }
    // A fusion the pipeline cannot evaluate as a whole (segment -1) has no
    // reference either: explained when the reference fails on it.
    bool whole_fails = std::any_of(pr.unbound.begin(), pr.unbound.end(),
                                   [](const UnboundExtent& u) { return u.segment < 0; });
    bool reference_failed = std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& d) {
      return d.message.rfind("reference: ", 0) == 0;
    });
    if (whole_fails && reference_failed) {
      ++t.explained;
      ++t.fix_refused;  // no fix binds a symbol the whole fusion lacks
      return;
    }
    if (!pr.failed() || !onlyPipelineErrors(r.diagnostics)) {
      ++t.unexplained;
      find("segmented", en,
           (pr.failed() ? "the point fails beyond the pipeline's prediction: "
                        : "the pipeline says the point runs, but execution fails: ") +
               firstError(r.diagnostics, true));
      return;
    }
    ++t.explained;
    // The fix: passes against the reference, or is refused.
    ro.fix = true;
    RunResult rf = runFusion(f, ro);
    res.outputs_compared += rf.outputs.size();
    if (rf.passed || roundingOnly(rf)) {
      ++t.fixed;
      t.rounding += !rf.passed;
      return;
    }
    bool refused = std::any_of(rf.diagnostics.begin(), rf.diagnostics.end(),
                               [](const Diagnostic& d) { return d.code == DiagCode::FixNotApplicable; });
    bool numeric = std::any_of(rf.diagnostics.begin(), rf.diagnostics.end(), [](const Diagnostic& d) {
      return d.code == DiagCode::NumericsMismatch || d.code == DiagCode::ExecutionFailed ||
             d.code == DiagCode::EvaluationFailed;
    });
    if (numeric) {
      find("fix", en, "the fixed program fails: " + firstError(rf.diagnostics, false));
    } else if (refused || rf.fix_actions.empty() || predictedBefore(rf.diagnostics, r.diagnostics)) {
      // No fix applies (the fix command says so), or the fixes repaired what
      // they address and what remains was reported before them (FC0303: no
      // fix addresses a dynamic reshape).
      ++t.fix_refused;
    } else {
      find("fix", en, "a fix was applied but the program still fails: " + firstError(rf.diagnostics, false));
    }
  }

  // Where a point runs with Reduction axes on segment inputs: stripping them
  // must change no value when its obligations hold, and the obligations
  // must agree with the pipeline on the stripped program.
  void strip(size_t k, const Profile& profile, const PipelineResult& pr) {
    if (pr.input_rewrite != InputRewrite::KeepReductions) return;
    // The segments name the exprs of the fusion the pipeline ran (without dead exprs, with the
    // sharding passes' sets).
    const Fusion& ran = pr.fusion(f);
    auto stripped = withStrippedInputs(ran, pr);
    if (!stripped) return;
    const std::string& en = points[k];
    EraTally& t = res.eras[k];
    std::vector<Obligation> obl = stripObligations(ran, pr.segmented);
    auto bad = std::find_if(obl.begin(), obl.end(), [](const Obligation& o) { return !o.holds; });
    PipelineOptions po;
    po.profile = profile;
    PipelineResult after = runPipeline(*stripped, po);
    // A symbol still used is unbound where segments are concretized alone,
    // or a forwarded input the executor has no value for.
    bool unbound = std::any_of(after.diagnostics.begin(), after.diagnostics.end(), [](const Diagnostic& d) {
      return d.code == DiagCode::UnboundExtent || d.code == DiagCode::MissingSegmentInput;
    });
    if (bad != obl.end()) {
      // Where the whole fusion is bound first, a symbol a segment uses is
      // known there: the obligation does not decide the verdict.
      if (unbound || profile.order != ConcretizeOrder::PerSegment) {
        ++t.strip_refused;
      } else {
        find("obligation", en,
             "obligation \"" + bad->statement + "\" fails (" + bad->discharge +
                 "), yet the pipeline finds the stripped program clean");
      }
      return;
    }
    if (after.failed()) {
      find("obligation", en,
           "every obligation of strip-reduction-axes holds, yet the stripped program fails: " +
               firstError(after.diagnostics, false));
      return;
    }
    RunOptions ro;
    ro.profile = profile;
    ro.against = &f;
    ro.reference = ReferenceKind::Faithful;
    RunResult r = runFusion(*stripped, ro);
    res.outputs_compared += r.outputs.size();
    if (!r.passed && roundingOnly(r)) ++t.rounding;
    if (!r.passed && !roundingOnly(r)) {
      find("strip", en,
           "stripping Reduction axes changed a computed value: " + firstError(r.diagnostics, false));
      return;
    }
    ++t.strip_checked;
  }
};

CheckResult checkImpl(const Fusion& f, const std::vector<std::string>& points) {
  Checker c{f, {}, points};
  c.res.eras.resize(points.size());
  try {
    c.roundTrip();
    if (std::any_of(c.res.findings.begin(), c.res.findings.end(),
                    [](const Finding& x) { return x.check == "verify"; }))
      return c.res;
    for (size_t k = 0; k < points.size(); ++k) c.point(k);
  } catch (const InternalError& e) {
    c.find("internal", "", std::string("internal error: ") + e.what());
  } catch (const std::exception& e) {
    c.find("internal", "", std::string("uncaught exception: ") + e.what());
  }
  return c.res;
}

}  // namespace

CheckResult checkFusion(const Fusion& f, const std::vector<std::string>& points) {
  return checkImpl(f, points);
}

bool stillFinds(const Fusion& f, const std::string& check, const std::string& era) {
  std::vector<std::string> points{"2024-06", "2024-07", "head"};
  if (!era.empty()) points = {era};
  CheckResult r = checkImpl(f, points);
  return std::any_of(r.findings.begin(), r.findings.end(),
                     [&](const Finding& x) { return x.check == check && x.era == era; });
}

bool minimizerAvailable() {
#ifdef FC_DIFFTEST_HAVE_REDUCER
  return true;
#else
  return false;
#endif
}

FuzzReport runFuzz(const FuzzOptions& opts, const std::function<void(uint64_t)>& progress) {
  FuzzReport rep;
  rep.first_seed = opts.seed;
  rep.era_list = opts.points;
  rep.eras.resize(opts.points.size());
  rep.minimizer_available = minimizerAvailable();
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < opts.count; ++i) {
    uint64_t seed = opts.seed + i;
    Fusion f;
    CheckResult r;
    try {
      f = randomFusion({seed, opts.max_exprs});
      r = checkImpl(f, opts.points);
    } catch (const InternalError& e) {
      Finding x;
      x.check = "internal";
      x.message = std::string("generator: ") + e.what();
      r.findings.push_back(std::move(x));
    }
    ++rep.fusions;
    rep.exprs += f.exprs.size();
    rep.sharded += !f.meshes.empty();
    rep.outputs_compared += r.outputs_compared;
    for (size_t k = 0; k < r.eras.size() && k < rep.eras.size(); ++k) {
      EraTally& a = rep.eras[k];
      const EraTally& b = r.eras[k];
      a.not_decided += b.not_decided;
      a.no_path += b.no_path;
      a.run += b.run;
      a.explained += b.explained;
      a.unexplained += b.unexplained;
      a.fixed += b.fixed;
      a.fix_refused += b.fix_refused;
      a.strip_checked += b.strip_checked;
      a.strip_refused += b.strip_refused;
      a.rounding += b.rounding;
    }
    for (Finding& x : r.findings) {
      ++rep.findings_total;
      if (rep.findings.size() >= opts.keep_findings) continue;
      x.seed = seed;
      x.fusion = f;
#ifdef FC_DIFFTEST_HAVE_REDUCER
      if (opts.minimize) {
        const std::string check = x.check, era = x.era;
        ReduceOptions ro;
        ro.max_steps = 2000;
        ro.time_limit_s = 30;
        ReduceResult rr = reduce(
            f, [&](const Fusion& g) { return stillFinds(g, check, era); }, ro);
        x.minimized = rr.stop != StopReason::NotInteresting;
        x.fusion = std::move(rr.best);
      }
#endif
      rep.findings.push_back(std::move(x));
    }
    if (progress) progress(i + 1);
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

std::string findingRepro(const Finding& x) {
  Fusion f = x.fusion;
  f.provenance.emplace_back("fuzz_check", x.check);
  if (!x.era.empty()) f.provenance.emplace_back("fuzz_point", x.era);
  f.provenance.emplace_back("fuzz_seed", std::to_string(x.seed));
  f.provenance.emplace_back("fuzz_finding", x.message);
  if (x.minimized) f.provenance.emplace_back("fuzz_minimized", "yes");
  return writeFusion(f);
}

std::string renderFuzzText(const FuzzReport& r) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "fuzz: " << r.fusions << " fusions (seeds " << r.first_seed << ".." << (r.first_seed + r.fusions - 1)
     << "), " << r.sharded << " multi-device, " << r.exprs << " exprs, " << r.outputs_compared
     << " outputs compared, " << r.seconds << " s (" << (r.seconds > 0 ? r.fusions / r.seconds : 0.0)
     << " fusions/s)\n";
  os << "point    run / explained (fixed, fix-refused) / unexplained; strip-checked, strip-refused; "
        "rounding; not decided, no path\n";
  for (size_t k = 0; k < r.era_list.size() && k < r.eras.size(); ++k) {
    const EraTally& t = r.eras[k];
    std::string en = r.era_list[k];
    en.resize(8, ' ');
    os << en << " " << t.run << " / " << t.explained << " (" << t.fixed << ", " << t.fix_refused << ") / "
       << t.unexplained << "; " << t.strip_checked << ", " << t.strip_refused << "; " << t.rounding << "; "
       << t.not_decided << ", " << t.no_path << "\n";
  }
  os << "unexplained findings: " << r.findings_total << "\n";
  for (const Finding& x : r.findings)
    os << "  seed " << x.seed << " [" << x.check << (x.era.empty() ? "" : " " + x.era) << "] " << x.message
       << "\n";
  if (r.findings_total > r.findings.size())
    os << "  (" << (r.findings_total - r.findings.size()) << " more not kept)\n";
  return os.str();
}

std::string renderFuzzJson(const FuzzReport& r, const std::vector<std::string>& written) {
  nlohmann::ordered_json j;
  j["fusions"] = r.fusions;
  j["first_seed"] = r.first_seed;
  j["multi_device"] = r.sharded;
  j["exprs"] = r.exprs;
  j["outputs_compared"] = r.outputs_compared;
  j["seconds"] = r.seconds;
  j["fusions_per_second"] = r.seconds > 0 ? r.fusions / r.seconds : 0.0;
  j["minimizer"] = r.minimizer_available;
  nlohmann::ordered_json eras = nlohmann::ordered_json::object();
  for (size_t k = 0; k < r.era_list.size() && k < r.eras.size(); ++k) {
    const EraTally& t = r.eras[k];
    eras[r.era_list[k]] = {{"run", t.run},
                           {"not_decided", t.not_decided},
                           {"no_path", t.no_path},
                           {"explained", t.explained},
                           {"fixed", t.fixed},
                           {"fix_refused", t.fix_refused},
                           {"strip_checked", t.strip_checked},
                           {"strip_refused", t.strip_refused},
                           {"rounding", t.rounding},
                           {"unexplained", t.unexplained}};
  }
  j["points"] = eras;
  j["findings_total"] = r.findings_total;
  j["findings"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& x = r.findings[i];
    nlohmann::ordered_json fj = {{"seed", x.seed},
                                 {"check", x.check},
                                 {"point", x.era},
                                 {"message", x.message},
                                 {"minimized", x.minimized}};
    if (i < written.size()) fj["repro"] = written[i];
    j["findings"].push_back(std::move(fj));
  }
  return j.dump(2) + "\n";
}

}  // namespace fc::difftest
