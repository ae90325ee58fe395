#include "pipeline/point.h"

#include <algorithm>
#include <cctype>

#include "pipeline/history.h"

namespace fc::nv {
namespace {

bool isHex(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

bool isDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
  return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

Point at(uint32_t pos, std::string_view spec, std::string how) {
  Point p;
  p.pos = pos;
  p.commit = std::string(commits()[pos].hash);
  p.date = std::string(commits()[pos].date);
  p.spec = std::string(spec);
  p.how = std::move(how);
  return p;
}

// The last commit dated `date` or earlier; nullopt before the history.
std::optional<uint32_t> lastOn(std::string_view date) {
  const auto& c = commits();
  auto it = std::upper_bound(c.begin(), c.end(), date,
                             [](std::string_view d, const Commit& x) { return d < x.date; });
  if (it == c.begin()) return std::nullopt;
  return static_cast<uint32_t>(it - c.begin() - 1);
}

std::variant<Point, PointError> byDate(std::string_view spec, std::string_view date, std::string how) {
  const auto& c = commits();
  auto pos = lastOn(date);
  if (!pos)
    return PointError{"nvFuser point " + std::string(spec) +
                          " is before the history fusecheck models (main from " +
                          std::string(c.front().date) + ")",
                      {std::string(c.front().date)}};
  Point p = at(*pos, spec, std::move(how));
  if (date > c.back().date)
    p.notes.push_back("the history fusecheck models ends at " + std::string(c.back().date) + " (" +
                      std::string(c.back().hash.substr(0, 9)) + "); using that commit");
  return p;
}

// Commits whose hash starts with `prefix`.
std::vector<uint32_t> byPrefix(std::string_view prefix) {
  std::vector<uint32_t> out;
  const auto& c = commits();
  for (uint32_t i = 0; i < c.size(); ++i)
    if (c[i].hash.substr(0, prefix.size()) == prefix) out.push_back(i);
  return out;
}

// Up to three commits sharing the longest prefix (at least 3 digits) with `hex`.
std::vector<std::string> nearCommits(std::string_view hex) {
  for (size_t n = std::min<size_t>(hex.size(), 12); n >= 3; --n) {
    auto hits = byPrefix(hex.substr(0, n));
    if (hits.empty()) continue;
    std::vector<std::string> out;
    for (uint32_t i : hits) {
      if (out.size() == 3) break;
      out.push_back(std::string(commits()[i].hash.substr(0, 12)) + " (" + std::string(commits()[i].date) +
                    ")");
    }
    return out;
  }
  return {};
}

struct VersionParts {
  std::string version;  // "0.2.14"
  std::string sha;      // "7f0bd0d" or ""
};

std::optional<VersionParts> parseVersion(std::string_view s) {
  // N.N.N, then +gitSHA / +gitUnknown, or a wheel's .TAG.
  size_t i = 0, dots = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    if (s[i] == '.') ++dots;
    if (dots == 3) break;
    ++i;
  }
  VersionParts v;
  v.version = std::string(s.substr(0, i));
  if (dots < 2 || v.version.empty() || v.version.back() == '.') return std::nullopt;
  std::string_view rest = s.substr(i);
  if (rest.substr(0, 4) == "+git")
    v.sha = std::string(rest.substr(4));
  else if (!rest.empty() && rest.front() != '.')
    return std::nullopt;
  return v;
}

std::vector<std::string> nearVersions(std::string_view version) {
  // The versions with the longest common prefix.
  std::vector<std::pair<size_t, std::string>> scored;
  for (const Version& v : versions()) {
    size_t n = 0;
    while (n < v.version.size() && n < version.size() && v.version[n] == version[n]) ++n;
    scored.push_back({n, std::string(v.version)});
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace

std::string Point::label() const {
  if (spec == "head") return "head (" + shortCommit() + ", " + date + ")";
  return date + " (" + shortCommit() + ")";
}

Point headPoint() {
  const uint32_t last = static_cast<uint32_t>(commits().size() - 1);
  return at(last, "head", "the newest commit fusecheck models");
}

std::variant<Point, PointError> resolvePoint(std::string_view spec) {
  if (spec == "head") return headPoint();
  if (spec == "2024-06")
    return byDate(spec, "2024-06-30",
                  "2024-06 stands for the last commit of main on 2024-06-30 (before #2487)");
  if (spec == "2024-07")
    return byDate(spec, "2024-07-31",
                  "2024-07 stands for the last commit of main on 2024-07-31 (after #2487)");
  if (isDate(spec)) return byDate(spec, spec, "the last commit of main on " + std::string(spec) + " (UTC)");
  if (spec.size() >= 7 && spec.size() <= 40 && isHex(spec)) {
    std::string hex(spec);
    std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return std::tolower(c); });
    auto hits = byPrefix(hex);
    if (hits.size() == 1) return at(hits[0], spec, "commit " + hex + " of main");
    if (hits.size() > 1) {
      PointError e{"nvFuser commit " + std::string(spec) + " is ambiguous: " + std::to_string(hits.size()) +
                       " commits of main start with it",
                   {}};
      for (uint32_t i : hits) e.suggestions.push_back(std::string(commits()[i].hash.substr(0, 12)));
      return e;
    }
    return PointError{"nvFuser commit " + std::string(spec) +
                          " is not on main's first-parent history as fusecheck knows it (to " +
                          std::string(commits().back().date) +
                          "); a build of a branch or a fork names its "
                          "own commit: pass the date or the main commit it is based on",
                      nearCommits(hex)};
  }
  if (auto v = parseVersion(spec)) {
    const auto& vs = versions();
    auto it = std::find_if(vs.begin(), vs.end(), [&](const Version& x) { return x.version == v->version; });
    if (it == vs.end())
      return PointError{"nvFuser version " + std::string(spec) + " is not one fusecheck knows (" +
                            std::string(vs.front().version) + " ... " + std::string(vs.back().version) + ")",
                        nearVersions(v->version)};
    std::string note;
    if (!v->sha.empty() && v->sha != "Unknown" && v->sha.size() >= 7 && isHex(v->sha)) {
      auto hits = byPrefix(v->sha);
      if (hits.size() == 1)
        return at(hits[0], spec,
                  "the +git" + v->sha + " of version " + std::string(spec) + ", a commit of main");
      note = "+git" + v->sha + " is not a commit of main (a branch build?)";
    }
    auto first = positionOf(it->first_commit);
    uint32_t last = static_cast<uint32_t>(commits().size() - 1);
    if (it + 1 != vs.end()) last = *positionOf((it + 1)->first_commit) - 1;
    Point p = at(*first, spec, "the first commit of main with version " + v->version);
    p.notes.push_back(
        (note.empty() ? std::string() : note + "; ") + "version " + v->version + " spans " +
        std::string(commits()[*first].date) + " (" + std::string(commits()[*first].hash.substr(0, 9)) +
        ") to " + std::string(commits()[last].date) + " (" + std::string(commits()[last].hash.substr(0, 9)) +
        "): fusecheck takes its first commit; pass a commit or a date for another");
    std::vector<std::string> inside;
    for (const Change& c : changes())
      if (c.pos > *first && c.pos <= last) {
        std::string pr = "#" + std::to_string(c.pr);
        if (std::find(inside.begin(), inside.end(), pr) == inside.end()) inside.push_back(pr);
      }
    if (!inside.empty()) {
      std::string n = "changes inside that range:";
      for (auto& s : inside) n += " " + s;
      p.notes.push_back(n);
    }
    return p;
  }
  PointError e{"'" + std::string(spec) +
                   "' is not an nvFuser point: give a date (2024-06-30), a commit of main (7+ hex digits), a "
                   "version (0.2.6, 0.2.14+git7f0bd0d) or head, 2024-06, 2024-07",
               {}};
  for (auto a : kPointAliases) e.suggestions.push_back(std::string(a));
  return e;
}

}  // namespace fc::nv
