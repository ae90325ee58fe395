// `check --matrix`: the verdict on one path (or, with --matrix=all, on every
// frontend x executor that existed) at every change point of nvFuser's
// history, merged into intervals, each named by the change that starts it.
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "driver/pipeline_json.h"
#include "io/json_locate.h"
#include "pipeline/default_executor.h"
#include "pipeline/history.h"
#include "pipeline/point_walk.h"

namespace fc::driver {
namespace {

using Interval = VerdictInterval;

struct PathRun {
  Frontend frontend;
  Executor executor;
  std::vector<Interval> intervals;
  // The executor is the one the frontend chose at each point (a Python
  // repro's user did not pick it): `executor` is unused.
  bool follows_frontend = false;
};

std::string pointText(uint32_t pos) { return pointDate(pos); }

PathRun walk(const Loaded& loaded, const PipelineOptions& base, Frontend fe, Executor fixed_ex,
             bool follows_frontend = false) {
  const uint32_t last = static_cast<uint32_t>(nv::commits().size() - 1);
  WalkPath path{fe, follows_frontend ? std::nullopt : std::optional<Executor>(fixed_ex), follows_frontend};
  return PathRun{fe, fixed_ex, walkPoints(loaded.fusion, base, 0, last, path), follows_frontend};
}

std::string verdictWord(const Interval& iv) {
  if (!iv.exists) return "n/a";
  switch (iv.verdict) {
    case Verdict::Clean: return "clean";
    case Verdict::Findings: return "FAIL";
    case Verdict::NotDecided: return "NOT DECIDED";
  }
  return "";
}

std::string pathTitle(const PathRun& p) {
  if (p.follows_frontend)
    return std::string(frontendTitle(p.frontend)) + " with the executor it chose at each point";
  return std::string(frontendTitle(p.frontend)) + " " + std::string(executorTitle(p.executor));
}

// The change after which the path stops failing for good, and the last
// failing interval ("fails up to ..."): nullptr when the path never fails or
// still fails at head.
const Interval* fixedAt(const PathRun& p, const Interval** last_fail) {
  *last_fail = nullptr;
  for (const Interval& iv : p.intervals)
    if (iv.exists && iv.verdict == Verdict::Findings) *last_fail = &iv;
  if (!*last_fail) return nullptr;
  const Interval* next = *last_fail + 1;
  if (next == p.intervals.data() + p.intervals.size()) return nullptr;
  return next;
}

std::string summary(const PathRun& p) {
  const Interval* last_fail = nullptr;
  const Interval* fix = fixedAt(p, &last_fail);
  if (!last_fail) {
    bool open = false;
    for (const Interval& iv : p.intervals) open |= iv.exists && iv.verdict == Verdict::NotDecided;
    return open ? "never fails where decided (" + pathTitle(p) + ")"
                : "clean wherever it exists (" + pathTitle(p) + ")";
  }
  if (!fix) return "fails up to head (" + pathTitle(p) + ")";
  if (!fix->exists)
    return "fails up to " + pointText(last_fail->to) + " (" +
           std::string(nv::commits()[last_fail->to].hash.substr(0, 9)) + ") on " + pathTitle(p) +
           "; not fixed: the path is gone from " + changesText(fix->start);
  std::string what = fix->verdict == Verdict::Clean ? "fixed by " : "changed by ";
  return "fails up to " + pointText(last_fail->to) + " (" +
         std::string(nv::commits()[last_fail->to].hash.substr(0, 9)) + ") on " + pathTitle(p) + "; " + what +
         changesText(fix->start) +
         (fix->verdict == Verdict::NotDecided ? ", not decided after it" : std::string());
}

}  // namespace

int checkMatrix(const CheckArgs& a, const Loaded& loaded, const PipelineOptions& opts, std::ostream& out,
                std::ostream& err) {
  std::vector<PathRun> runs;
  const bool multi = isMultiDevice(loaded.fusion);
  if (a.matrix_all) {
    for (Frontend fe : kFrontends)
      for (Executor ex : kExecutors) {
        bool ever = false;
        ever |= !pathMissing(fe, ex, nv::stateAt(0), multi);
        for (const nv::Change& c : nv::changes()) ever |= !pathMissing(fe, ex, nv::stateAt(c.pos), multi);
        if (ever) runs.push_back(walk(loaded, opts, fe, ex));
      }
  } else {
    // A Python frontend chooses its executor itself: when the profile's executor is that
    // choice (not an opt-in such as use_multidevice_executor), the walk follows the
    // frontend's choice across the changes that moved it.
    const Profile& p = opts.profile;
    const bool follows =
        p.frontend != Frontend::Cpp && p.executor == defaultExecutor(p.frontend, p.state, multi);
    runs.push_back(walk(loaded, opts, p.frontend, p.executor, follows));
  }
  bool any_fail = false, any_open = false;
  for (const PathRun& p : runs)
    for (const Interval& iv : p.intervals) {
      any_fail |= iv.exists && iv.verdict == Verdict::Findings;
      any_open |= iv.exists && iv.verdict == Verdict::NotDecided;
    }
  // --expect-fixed-by PR: on the checked path(s), the findings end with that PR.
  int expect_rc = -1;
  std::string expect_msg;
  if (a.expect_fixed_by > 0) {
    expect_rc = kExitClean;
    for (const PathRun& p : runs) {
      const Interval* last_fail = nullptr;
      const Interval* fix = fixedAt(p, &last_fail);
      bool ok = fix && fix->exists && fix->verdict == Verdict::Clean &&
                std::any_of(fix->start.begin(), fix->start.end(),
                            [&](const nv::Change* c) { return c->pr == a.expect_fixed_by; });
      if (!ok) {
        expect_rc = kExitFindings;
        expect_msg += "expected on " + pathTitle(p) + ": fixed by #" + std::to_string(a.expect_fixed_by) +
                      "; got: " + summary(p) + "\n";
      }
    }
  }
  if (a.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["file"] = a.file;
    if (const auto& pr = opts.profile.printed_range)
      j["printed"] = {{"why", pr->why},
                      {"from", std::string(nv::commits()[pr->first].hash)},
                      {"to", std::string(nv::commits()[pr->last].hash)}};
    j["paths"] = nlohmann::ordered_json::array();
    for (const PathRun& p : runs) {
      nlohmann::ordered_json jp;
      jp["frontend"] = std::string(frontendName(p.frontend));
      jp["executor"] =
          p.follows_frontend ? std::string("frontend-choice") : std::string(executorName(p.executor));
      jp["intervals"] = nlohmann::ordered_json::array();
      for (const Interval& iv : p.intervals) {
        nlohmann::ordered_json x;
        x["from"] = {{"commit", std::string(nv::commits()[iv.from].hash)}, {"date", pointText(iv.from)}};
        x["to"] = {{"commit", std::string(nv::commits()[iv.to].hash)}, {"date", pointText(iv.to)}};
        x["changes"] = nlohmann::ordered_json::array();
        for (const nv::Change* c : iv.start)
          x["changes"].push_back({{"pr", c->pr},
                                  {"commit", std::string(c->commit)},
                                  {"date", std::string(c->date)},
                                  {"switch", std::string(nv::switchInfo(c->sw).key)},
                                  {"value", std::string(c->valueName())}});
        x["verdict"] = iv.exists ? std::string(verdictName(iv.verdict)) : std::string("n/a");
        if (!iv.exists) x["why"] = iv.missing;
        x["codes"] = std::vector<std::string>(iv.codes.begin(), iv.codes.end());
        if (!iv.first.empty()) x["first"] = iv.first;
        jp["intervals"].push_back(std::move(x));
      }
      const Interval* last_fail = nullptr;
      const Interval* fix = fixedAt(p, &last_fail);
      if (fix && fix->exists && fix->verdict == Verdict::Clean && !fix->start.empty())
        jp["fixed_by"] = {{"pr", fix->start.front()->pr},
                          {"commit", std::string(fix->start.front()->commit)},
                          {"date", std::string(fix->start.front()->date)}};
      jp["summary"] = summary(p);
      j["paths"].push_back(std::move(jp));
    }
    if (expect_rc >= 0)
      j["expect_fixed_by"] = {{"pr", a.expect_fixed_by}, {"holds", expect_rc == kExitClean}};
    out << j.dump(2) << "\n";
  } else {
    if (const auto& pr = opts.profile.printed_range)
      out << "the repro was " << pr->why << ": nvFuser " << pointText(pr->first) << " .. "
          << (pr->last + 1 == nv::commits().size() ? std::string("head") : pointText(pr->last)) << "\n";
    for (const PathRun& p : runs) {
      out << "check --matrix: " << pathTitle(p) << "\n";
      for (const Interval& iv : p.intervals) {
        std::string span =
            pointText(iv.from) + " .. " + (iv.to + 1 == nv::commits().size() ? "head" : pointText(iv.to));
        span.resize(25, ' ');
        std::string v = verdictWord(iv);
        v.resize(12, ' ');
        out << "  " << span << v;
        if (!iv.exists)
          out << iv.missing;
        else if (!iv.first.empty())
          out << iv.first;
        if (!iv.start.empty())
          out << (iv.exists && iv.first.empty() ? "" : "  ") << "[from " << changesText(iv.start) << "]";
        out << "\n";
      }
      out << summary(p) << "\n";
    }
  }
  if (expect_rc >= 0) {
    if (expect_rc != kExitClean)
      err << "fusecheck: --expect-fixed-by " << a.expect_fixed_by << " does not hold:\n" << expect_msg;
    return expect_rc;
  }
  (void)err;
  return any_fail ? kExitFindings : any_open ? kExitNotDecided : kExitClean;
}

}  // namespace fc::driver
