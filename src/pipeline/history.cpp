#include "pipeline/history.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "pipeline/history_data.h"
#include "support/internal_error.h"

namespace fc::nv {
namespace {

// "A, B, C" (a stringified __VA_ARGS__) -> {"A", "B", "C"}.
std::vector<std::string_view> splitNames(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    out.push_back(part);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

const std::vector<SwitchInfo>& switchTable() {
  static const std::vector<SwitchInfo> t = [] {
    std::vector<SwitchInfo> v;
#define FC_SWITCH(Name, key, Initial, doc, evidence, ...) \
  v.push_back({#Name, key, doc, evidence, static_cast<uint8_t>(Name::Initial), splitNames(#__VA_ARGS__)});
#include "pipeline/nvfuser_history.def"
    return v;
  }();
  return t;
}

const std::vector<CheckInfo>& checkTable() {
  static const std::vector<CheckInfo> t = {
#define FC_NVCHECK(Name, message, where) {#Name, message, where},
#include "pipeline/nvfuser_history.def"
  };
  return t;
}

// Parses "hash<TAB>date" / "a<TAB>b<TAB>c" lines, skipping '#' comments.
std::vector<std::vector<std::string_view>> tsvRows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> cols;
    while (true) {
      size_t tab = line.find('\t');
      cols.push_back(line.substr(0, tab));
      if (tab == std::string_view::npos) break;
      line.remove_prefix(tab + 1);
    }
    rows.push_back(std::move(cols));
  }
  return rows;
}

struct Data {
  std::vector<Commit> commits;
  std::unordered_map<std::string_view, uint32_t> pos;
  std::vector<Version> versions;
  std::vector<Change> changes;                // commit order
  std::vector<std::vector<CheckSite>> sites;  // per check, commit order
  std::vector<std::vector<const Change*>> by_switch;
};

uint32_t must(const Data& d, std::string_view hash, std::string_view what) {
  auto it = d.pos.find(hash);
  if (it == d.pos.end())
    throw InternalError("nvfuser_history.def: " + std::string(what) + " names commit " + std::string(hash) +
                        ", which is not on main's first-parent history (nvfuser_commits.tsv)");
  return it->second;
}

const Data& data() {
  static const Data d = [] {
    Data d;
    for (const auto& r : tsvRows(commitsTsv()))
      if (r.size() >= 2) d.commits.push_back({r[0], r[1]});
    d.pos.reserve(d.commits.size());
    for (uint32_t i = 0; i < d.commits.size(); ++i) d.pos.emplace(d.commits[i].hash, i);
    for (const auto& r : tsvRows(versionsTsv()))
      if (r.size() >= 3) d.versions.push_back({r[0], r[1], r[2]});
#define FC_CHANGE(Name, Value, pr, commit, date, title, evidence, effect)                                  \
  d.changes.push_back({Switch::Name, static_cast<uint8_t>(Name::Value), pr, commit, date, title, evidence, \
                       effect, must(d, commit, "#" #pr)});
#include "pipeline/nvfuser_history.def"
    std::stable_sort(d.changes.begin(), d.changes.end(),
                     [](const Change& a, const Change& b) { return a.pos < b.pos; });
    d.by_switch.resize(kSwitches);
    for (const Change& c : d.changes) d.by_switch[static_cast<size_t>(c.sw)].push_back(&c);
    d.sites.resize(kChecks);
#define FC_NVCHECK_AT(Name, pr, commit, date, file, line, macro, cond)                            \
  d.sites[static_cast<size_t>(Check::Name)].push_back({Check::Name, pr, commit, date, file, line, \
                                                       Macro::macro, cond,                        \
                                                       must(d, commit, "a check of " #Name)});
#include "pipeline/nvfuser_history.def"
    for (auto& s : d.sites)
      std::stable_sort(s.begin(), s.end(),
                       [](const CheckSite& a, const CheckSite& b) { return a.pos < b.pos; });
    return d;
  }();
  return d;
}

}  // namespace

const SwitchInfo& switchInfo(Switch s) { return switchTable()[static_cast<size_t>(s)]; }
const CheckInfo& checkInfo(Check c) { return checkTable()[static_cast<size_t>(c)]; }

std::string Change::label() const {
  return "#" + std::to_string(pr) + " (" + shortCommit() + ", " + std::string(date) + ")";
}

const std::vector<Change>& changes() { return data().changes; }
const std::vector<Commit>& commits() { return data().commits; }
const std::vector<Version>& versions() { return data().versions; }

std::optional<uint32_t> positionOf(std::string_view full_hash) {
  const Data& d = data();
  auto it = d.pos.find(full_hash);
  if (it == d.pos.end()) return std::nullopt;
  return it->second;
}

State stateAt(uint32_t pos) {
  State s;
  for (size_t i = 0; i < kSwitches; ++i) s.v[i] = switchTable()[i].initial;
  for (const Change& c : data().changes) {
    if (c.pos > pos) break;
    s.v[static_cast<size_t>(c.sw)] = c.value;
  }
  return s;
}

const Change* changeBehind(Switch s, uint32_t pos) {
  const Change* last = nullptr;
  for (const Change* c : data().by_switch[static_cast<size_t>(s)]) {
    if (c->pos > pos) break;
    last = c;
  }
  return last;
}

const Change* nextChangeTo(Switch s, uint8_t value, uint32_t pos) {
  for (const Change* c : data().by_switch[static_cast<size_t>(s)])
    if (c->pos > pos && c->value == value) return c;
  return nullptr;
}

std::optional<CheckSite> checkAt(Check c, uint32_t pos) {
  const CheckSite* last = nullptr;
  for (const CheckSite& s : data().sites[static_cast<size_t>(c)]) {
    if (s.pos > pos) break;
    last = &s;
  }
  if (!last || last->file.empty()) return std::nullopt;
  return *last;
}

std::vector<CheckSite> checkSites(Check c) { return data().sites[static_cast<size_t>(c)]; }

}  // namespace fc::nv
