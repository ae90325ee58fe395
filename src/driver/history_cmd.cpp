#include "driver/history_cmd.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "pipeline/history.h"
#include "pipeline/point.h"

namespace fc::driver {
namespace {

std::string md(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string switchValue(nv::Switch s, uint8_t v) {
  return std::string(nv::switchInfo(s).key) + " = " + std::string(nv::switchInfo(s).values[v]);
}

nlohmann::ordered_json changeJson(const nv::Change& c) {
  nlohmann::ordered_json j;
  j["pr"] = c.pr;
  j["commit"] = std::string(c.commit);
  j["date"] = std::string(c.date);
  j["switch"] = std::string(nv::switchInfo(c.sw).key);
  j["value"] = std::string(c.valueName());
  j["title"] = std::string(c.title);
  j["evidence"] = std::string(c.evidence);
  j["effect"] = std::string(c.effect);
  return j;
}

void listText(std::ostream& out) {
  const auto& cs = nv::changes();
  out << "nvFuser change points fusecheck models: " << cs.size() << " changes of " << nv::kSwitches
      << " switches, main " << nv::commits().front().date << " .. " << nv::commits().back().date << " ("
      << nv::commits().size() << " commits)\n";
  for (const nv::Change& c : cs) {
    std::string pr = "#" + std::to_string(c.pr);
    pr.resize(6, ' ');
    out << c.date << "  " << pr << " " << c.shortCommit() << "  " << switchValue(c.sw, c.value) << "\n";
    out << "                              " << c.title << "\n";
    out << "                              " << c.effect << "\n";
  }
  out << "`fusecheck history POINT` resolves a date, commit or version; docs/nvfuser-history.md has the "
         "evidence.\n";
}

int pointText(const nv::Point& p, std::ostream& out) {
  out << "nvFuser " << p.spec << ": " << p.commit << " (" << p.date << "), " << p.how << "\n";
  for (const auto& n : p.notes) out << "  note: " << n << "\n";
  nv::State st = nv::stateAt(p.pos);
  for (size_t s = 0; s < nv::kSwitches; ++s) {
    auto sw = static_cast<nv::Switch>(s);
    const nv::SwitchInfo& info = nv::switchInfo(sw);
    std::string key(info.key);
    key.resize(26, ' ');
    out << "  " << key << " " << info.values[st.v[s]];
    if (const nv::Change* c = nv::changeBehind(sw, p.pos))
      out << "  (since " << c->label() << ")";
    else
      out << "  (initial)";
    out << "\n";
  }
  return kExitClean;
}

nlohmann::ordered_json pointJson(const nv::Point& p) {
  nlohmann::ordered_json j{
      {"spec", p.spec}, {"commit", p.commit}, {"date", p.date}, {"how", p.how}, {"notes", p.notes}};
  nv::State st = nv::stateAt(p.pos);
  nlohmann::ordered_json sw = nlohmann::ordered_json::object();
  for (size_t s = 0; s < nv::kSwitches; ++s) {
    auto id = static_cast<nv::Switch>(s);
    nlohmann::ordered_json x;
    x["value"] = std::string(nv::switchInfo(id).values[st.v[s]]);
    if (const nv::Change* c = nv::changeBehind(id, p.pos)) x["since"] = changeJson(*c);
    sw[std::string(nv::switchInfo(id).key)] = x;
  }
  j["switches"] = sw;
  return j;
}

}  // namespace

std::string historyMarkdown() {
  std::ostringstream o;
  const auto& cs = nv::changes();
  o << "# nvFuser's history as fusecheck models it\n\n";
  o << "<!-- Generated: `fusecheck history --format markdown > docs/nvfuser-history.md`. Do not edit;\n"
       "     edit src/pipeline/nvfuser_history.def and regenerate (a test keeps the two equal). -->\n\n";
  o << "fusecheck replays nvFuser as it was at a point of its history, on one path (a frontend and an\n"
       "executor). The table below is the one place that knows what changed when: each row is a merged\n"
       "change on nvFuser's main (a squash merge, dated by its UTC commit date) that sets one **switch**\n"
       "to a new value, with the source that shows it. The state at a commit is every row at or before\n"
       "it on main's first-parent history ("
    << nv::commits().size() << " commits, " << nv::commits().front().date << " to "
    << nv::commits().back().date << ").\n\n";
  o << "`fusecheck history POINT` prints the state at a point; `--nvfuser POINT` on `check`, `segment`,\n"
       "`fix`, ... replays it. A point is a date, a commit of main, a version string as repro headers\n"
       "print it (`0.2.14+git7f0bd0d`; versions from `src/pipeline/nvfuser_versions.tsv`), or `head`,\n"
       "`2024-06` (2024-06-30), `2024-07` (2024-07-31).\n\n";
  o << "## Switches\n\n";
  o << "| switch | what it decides | values | initially (evidence) |\n|---|---|---|---|\n";
  for (size_t s = 0; s < nv::kSwitches; ++s) {
    const nv::SwitchInfo& i = nv::switchInfo(static_cast<nv::Switch>(s));
    std::string vals;
    for (size_t k = 0; k < i.values.size(); ++k) vals += (k ? ", " : "") + std::string(i.values[k]);
    o << "| `" << i.key << "` | " << md(i.doc) << " | " << vals << " | " << i.values[i.initial] << " ("
      << md(i.initial_evidence) << ") |\n";
  }
  o << "\n## Changes (" << cs.size() << ")\n\n";
  o << "| date | PR | commit | switch = value | title | evidence | effect |\n|---|---|---|---|---|---|---|\n";
  for (const nv::Change& c : cs)
    o << "| " << c.date << " | #" << c.pr << " | `" << c.shortCommit() << "` | `" << nv::switchInfo(c.sw).key
      << "` = " << c.valueName() << " | " << md(c.title) << " | " << md(c.evidence) << " | " << md(c.effect)
      << " |\n";
  o << "\n## Where nvFuser's checks are, by date\n\n";
  o << "Each diagnostic fusecheck reports names the nvFuser check it stands for, at the line nvFuser\n"
       "prints (the first line of the macro call) for the point replayed. Generated from nvFuser's\n"
       "source by `tools/nvfuser_history/scan_checks.py`.\n\n";
  for (size_t k = 0; k < nv::kChecks; ++k) {
    auto c = static_cast<nv::Check>(k);
    const nv::CheckInfo& i = nv::checkInfo(c);
    o << "### " << i.name << "\n\n";
    if (!i.message.empty()) o << "Message: `" << i.message << "`  \n";
    o << "Where: " << i.where << "\n\n";
    o << "| from | PR | commit | site |\n|---|---|---|---|\n";
    for (const nv::CheckSite& s : nv::checkSites(c)) {
      std::string site = s.file.empty() ? std::string("(gone)")
                                        : "`" + std::string(s.file) + ":" + std::to_string(s.line) + "`";
      o << "| " << s.date << " | " << (s.pr ? "#" + std::to_string(s.pr) : std::string("-")) << " | `"
        << s.commit.substr(0, 9) << "` | " << site << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

int history(const HistoryArgs& a, std::ostream& out, std::ostream& err) {
  if (a.format == HistoryFormat::Markdown) {
    if (!a.point.empty()) {
      err << "fusecheck: history: --format markdown lists every change; it takes no POINT\n";
      return kExitBadInput;
    }
    out << historyMarkdown();
    return kExitClean;
  }
  if (a.point.empty()) {
    if (a.format == HistoryFormat::Json) {
      nlohmann::ordered_json j;
      j["commits"] = nv::commits().size();
      j["first"] = std::string(nv::commits().front().date);
      j["head"] = std::string(nv::commits().back().hash);
      j["changes"] = nlohmann::ordered_json::array();
      for (const nv::Change& c : nv::changes()) j["changes"].push_back(changeJson(c));
      out << j.dump(2) << "\n";
    } else {
      listText(out);
    }
    return kExitClean;
  }
  auto r = nv::resolvePoint(a.point);
  if (auto* e = std::get_if<nv::PointError>(&r)) {
    err << "fusecheck: " << e->message << "\n";
    if (!e->suggestions.empty()) {
      err << "  did you mean:";
      for (auto& s : e->suggestions) err << " " << s;
      err << "\n";
    }
    return kExitBadInput;
  }
  const nv::Point& p = std::get<nv::Point>(r);
  if (a.format == HistoryFormat::Json) {
    out << pointJson(p).dump(2) << "\n";
    return kExitClean;
  }
  return pointText(p, out);
}

}  // namespace fc::driver
