#include "pipeline/point_walk.h"

#include <algorithm>

#include "pipeline/default_executor.h"

namespace fc {

std::string pointDate(uint32_t pos) { return std::string(nv::commits()[pos].date); }

std::string changesText(const std::vector<const nv::Change*>& cs) {
  std::string out;
  std::vector<int> prs;
  for (const nv::Change* c : cs)
    if (std::find(prs.begin(), prs.end(), c->pr) == prs.end()) {
      prs.push_back(c->pr);
      out += (out.empty() ? "" : ", ") + c->label();
    }
  return out;
}

std::vector<VerdictInterval> walkPoints(const Fusion& f, const PipelineOptions& base, uint32_t first,
                                        uint32_t last, const WalkPath& path) {
  // The positions the verdict can change at: `first` and every change after it.
  std::vector<uint32_t> positions{first};
  for (const nv::Change& c : nv::changes())
    if (c.pos > first && c.pos <= last && positions.back() != c.pos) positions.push_back(c.pos);
  const bool multi = isMultiDevice(f);
  std::vector<VerdictInterval> out;
  for (size_t i = 0; i < positions.size(); ++i) {
    const uint32_t at = positions[i];
    nv::Point pt;
    pt.pos = at;
    pt.commit = std::string(nv::commits()[at].hash);
    pt.date = std::string(nv::commits()[at].date);
    pt.spec = pt.date;
    VerdictInterval iv;
    iv.from = at;
    iv.to = i + 1 < positions.size() ? positions[i + 1] - 1 : last;
    for (const nv::Change& c : nv::changes())
      if (c.pos == at) iv.start.push_back(&c);
    const nv::State st = nv::stateAt(at);
    std::optional<Executor> ex = path.executor;
    if (path.executor_follows_frontend && path.frontend) ex = defaultExecutor(*path.frontend, st, multi);
    std::optional<std::string> why;
    if (path.frontend && ex) why = pathMissing(*path.frontend, *ex, st, multi);
    if (why) {
      iv.exists = false;
      iv.missing = *why;
    } else {
      auto prof = profileAt(pt, path.frontend, ex, f);
      if (auto* e = std::get_if<ProfileError>(&prof)) {
        iv.exists = false;
        iv.missing = e->message;
      } else {
        PipelineOptions o = base;
        o.profile = std::get<Profile>(std::move(prof));
        o.trace = false;
        iv.path = o.profile.pathTitle();
        PipelineResult r = runPipeline(f, o);
        iv.verdict = r.verdict();
        for (const Diagnostic& d : r.diagnostics) {
          if (d.severity != Severity::Error && d.severity != Severity::NotDecided) continue;
          iv.codes.insert(std::string(diagCodeInfo(d.code).id));
          if (iv.first.empty()) iv.first = std::string(diagCodeInfo(d.code).id) + " " + d.message;
        }
      }
    }
    // Where the path is assumed point by point, a stretch also keeps one path.
    if (!out.empty() && out.back().sameVerdict(iv) && (path.frontend || out.back().path == iv.path)) {
      out.back().to = iv.to;
      continue;
    }
    out.push_back(std::move(iv));
  }
  return out;
}

}  // namespace fc
