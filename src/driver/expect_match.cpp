// Matching expected to actual diagnostics both ways (a maximum matching by
// augmenting paths, so that two expectations that could match the same
// diagnostic never fail a good sidecar), and the words a new expectation
// records (see expect.h).
#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "driver/expect_internal.h"

namespace fc::driver::expect {
namespace {

using Ok = std::function<bool(const ojson&, const Actual&)>;

ojson actualField(const Actual& a, const std::string& k) {
  if (k == "pointer") return a.pointer;
  if (k == "line") return a.line;
  return a.col;
}

bool locationMatches(const ojson& e, const Actual& a) {
  if (e["code"].get<std::string>() != a.code) return false;
  for (const char* k : kLocationKeys)
    if (e.contains(k) && e[k] != actualField(a, k)) return false;
  return true;
}

std::vector<std::string> wordsProblems(const ojson& e, const Actual& a) {
  std::vector<std::string> out;
  if (e.contains("message_contains") &&
      a.message.find(e["message_contains"].get<std::string>()) == std::string::npos)
    out.push_back("its message " + pyDumps(a.message) + " does not contain " +
                  pyDumps(e["message_contains"]));
  if (e.contains("notes_contain"))
    for (const auto& s : e["notes_contain"]) {
      bool found = false;
      for (const std::string& n : a.notes) found |= n.find(s.get<std::string>()) != std::string::npos;
      if (!found) out.push_back("no note contains " + pyDumps(s));
    }
  return out;
}

bool diagMatches(const ojson& e, const Actual& a) {
  return locationMatches(e, a) && wordsProblems(e, a).empty();
}

// {expected index: actual index}, as the project's runner finds it.
std::map<size_t, size_t> match(const std::vector<ojson>& expected, const std::vector<Actual>& actual,
                               const Ok& ok) {
  std::map<size_t, size_t> owner;  // actual -> expected
  std::function<bool(size_t, std::set<size_t>&)> assign = [&](size_t ei, std::set<size_t>& seen) {
    for (size_t ai = 0; ai < actual.size(); ++ai) {
      if (seen.count(ai) || !ok(expected[ei], actual[ai])) continue;
      seen.insert(ai);
      auto it = owner.find(ai);
      if (it == owner.end() || assign(it->second, seen)) {
        owner[ai] = ei;
        return true;
      }
    }
    return false;
  };
  for (size_t ei = 0; ei < expected.size(); ++ei) {
    std::set<size_t> seen;
    assign(ei, seen);
  }
  std::map<size_t, size_t> pairs;
  for (auto [ai, ei] : owner) pairs[ei] = ai;
  return pairs;
}

std::string describeWhere(const ojson& pointer, bool has_loc, const ojson& line, const ojson& col) {
  std::string w = pointer.is_null()                    ? "(no pointer)"
                  : pointer.get<std::string>().empty() ? "(document)"
                                                       : pointer.get<std::string>();
  if (has_loc) {
    auto part = [](const ojson& v) { return v.is_null() ? std::string("?") : pyDumps(v); };
    w += " " + part(line) + ":" + part(col);
  }
  return w;
}

std::string describe(const ojson& e, bool words = true) {
  std::string s = e["code"].get<std::string>() + " " +
                  describeWhere(e.contains("pointer") ? e["pointer"] : ojson(nullptr),
                                e.contains("line") || e.contains("col"), e.value("line", ojson(nullptr)),
                                e.value("col", ojson(nullptr)));
  if (words && e.contains("message_contains")) s += " " + pyDumps(e["message_contains"]);
  return s;
}

std::string describe(const Actual& a) {
  return a.code + " " + describeWhere(a.pointer, true, a.line, a.col) + " " + pyDumps(a.message);
}

template <class T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<size_t>& idx) {
  std::vector<T> out;
  for (size_t i : idx) out.push_back(v[i]);
  return out;
}

// Expected and actual diagnostics paired as the project's runner pairs them:
// `exact` by diagMatches, then `near` by locationMatches among those left
// (free_e, free_a: the indices `exact` leaves, in order; `near` in the order
// of the expected index).
struct Pairing {
  std::map<size_t, size_t> exact;
  std::vector<size_t> free_e, free_a;
  std::vector<std::pair<size_t, size_t>> near;
};
Pairing pairDiagnostics(const std::vector<ojson>& expected, const std::vector<Actual>& actual) {
  Pairing p;
  p.exact = match(expected, actual, diagMatches);
  std::set<size_t> used;
  for (auto [e, a] : p.exact) used.insert(a);
  for (size_t i = 0; i < expected.size(); ++i)
    if (!p.exact.count(i)) p.free_e.push_back(i);
  for (size_t i = 0; i < actual.size(); ++i)
    if (!used.count(i)) p.free_a.push_back(i);
  for (auto [ne, na] : match(pick(expected, p.free_e), pick(actual, p.free_a), locationMatches))
    p.near.emplace_back(p.free_e[ne], p.free_a[na]);
  return p;
}

// Code points of a UTF-8 string up to byte `b`.
size_t cpAt(const std::string& s, size_t b) { return codePoints(std::string_view(s).substr(0, b)); }
// Byte offset of code point `n`.
size_t byteOf(const std::string& s, size_t n) {
  size_t cp = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (cp == n) return i;
    ++cp;
  }
  return s.size();
}

std::string strip(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1);
}

}  // namespace

std::vector<Actual> actualDiagnostics(const ojson& doc) {
  if (!doc.is_object() || !doc.contains("diagnostics") || !doc["diagnostics"].is_array())
    throw Error{"the output has no \"diagnostics\" array"};
  std::vector<Actual> out;
  for (const ojson& d : doc["diagnostics"]) {
    if (!d.is_object()) throw Error{"a diagnostic is not an object"};
    Actual a;
    a.code = d.value("code", "");
    ojson loc = d.contains("location") && d["location"].is_object() ? d["location"] : ojson::object();
    a.pointer = loc.value("pointer", ojson(nullptr));
    a.line = loc.value("line", ojson(nullptr));
    a.col = loc.value("col", ojson(nullptr));
    a.message = d.value("message", "");
    if (d.contains("notes") && d["notes"].is_array())
      for (const ojson& n : d["notes"])
        a.notes.push_back(n.value("kind", "note") + ": " + n.value("message", ""));
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> compareDiagnostics(const ojson& expected_json, const std::vector<Actual>& actual) {
  std::vector<ojson> expected(expected_json.begin(), expected_json.end());
  Pairing pairs = pairDiagnostics(expected, actual);
  std::vector<std::string> problems;
  std::set<size_t> near_e, near_a;
  for (auto [ei, ai] : pairs.near) {
    const ojson& e = expected[ei];
    const Actual& a = actual[ai];
    std::string words;
    for (const std::string& p : wordsProblems(e, a)) words += (words.empty() ? "" : "; ") + p;
    problems.push_back("diagnostic " + describe(e, false) + ": " + words);
    near_e.insert(ei);
    near_a.insert(ai);
  }
  for (size_t i : pairs.free_e)
    if (!near_e.count(i)) problems.push_back("missing diagnostic    " + describe(expected[i]));
  for (size_t i : pairs.free_a)
    if (!near_a.count(i)) problems.push_back("unexpected diagnostic " + describe(actual[i]));
  return problems;
}

std::string distinctive(const std::string& message) {
  static const std::regex kPlace("^(segment|expr) \\d+ \\([^()]*\\) ");
  static const std::regex kAside(" \\([^()]*\\)$");
  static const std::regex kNamed("(segment|expr) \\d+$");
  static const std::regex kParens("\\([^()]*\\)");
  constexpr size_t kMaxWords = 100;
  std::string text = message;
  std::smatch m;
  if (std::regex_search(text, m, kPlace, std::regex_constants::match_continuous)) {
    size_t end = static_cast<size_t>(m.position(0) + m.length(0));
    if (codePoints(text) - cpAt(text, end) >= 12) text = text.substr(end);
  }
  while (true) {
    if (!std::regex_search(text, m, kAside)) break;
    size_t start = static_cast<size_t>(m.position(0));
    std::string before = text.substr(0, start);
    if (cpAt(text, start) < 16 || std::regex_search(before, kNamed)) break;
    text = before;
  }
  if (codePoints(text) > kMaxWords) {
    size_t colon = text.rfind(": ");
    std::string clause = colon == std::string::npos ? text : text.substr(colon + 2);
    std::vector<std::string> spans;
    std::sregex_token_iterator it(text.begin(), text.end(), kParens, -1), end;
    for (; it != end; ++it) {
      std::string s = strip(*it);
      if (codePoints(s) >= 20 && codePoints(s) <= kMaxWords) spans.push_back(s);
    }
    if (codePoints(clause) >= 20 && codePoints(clause) <= kMaxWords) {
      text = clause;
    } else if (!spans.empty()) {
      text = spans.back();
    } else {
      size_t limit = byteOf(text, kMaxWords);
      size_t cut = text.rfind(' ', limit == 0 ? 0 : limit - 1);
      size_t cut_cp = cut == std::string::npos ? 0 : cpAt(text, cut);
      text =
          cut != std::string::npos && cut_cp >= kMaxWords / 2 ? text.substr(0, cut) : text.substr(0, limit);
    }
  }
  std::string s = strip(text);
  return s.empty() ? message : s;
}

// Used by expect_update.cpp.
std::pair<ojson, std::vector<std::string>> recordedDiagnostics(const ojson& old_json,
                                                               const std::vector<Actual>& actual) {
  std::vector<ojson> old(old_json.begin(), old_json.end());
  Pairing paired = pairDiagnostics(old, actual);
  std::map<size_t, size_t> pairs = std::move(paired.exact);
  for (auto [ei, ai] : paired.near) pairs[ei] = ai;
  std::map<size_t, const ojson*> by_actual;
  for (auto [ei, ai] : pairs) by_actual[ai] = &old[ei];
  ojson out = ojson::array();
  std::vector<std::string> notes;
  static const ojson kEmpty = ojson::object();
  for (size_t ai = 0; ai < actual.size(); ++ai) {
    const Actual& a = actual[ai];
    const ojson& e = by_actual.count(ai) ? *by_actual[ai] : kEmpty;
    ojson d = ojson::object();
    d["code"] = a.code;
    for (const char* k : kLocationKeys)
      if (e.contains(k) || e.empty()) d[k] = actualField(a, k);
    std::string old_words = e.contains("message_contains") ? e["message_contains"].get<std::string>() : "";
    if (!old_words.empty() && a.message.find(old_words) != std::string::npos) {
      d["message_contains"] = old_words;
    } else {
      d["message_contains"] = distinctive(a.message);
      if (!old_words.empty())
        notes.push_back(a.code + ": message_contains " + pyDumps(old_words) + " -> " +
                        pyDumps(d["message_contains"]));
    }
    ojson kept = ojson::array();
    if (e.contains("notes_contain"))
      for (const auto& s : e["notes_contain"]) {
        bool found = false;
        for (const std::string& n : a.notes) found |= n.find(s.get<std::string>()) != std::string::npos;
        if (found)
          kept.push_back(s);
        else
          notes.push_back(a.code + ": dropped notes_contain " + pyDumps(s) + " (no note has it now)");
      }
    if (!kept.empty()) d["notes_contain"] = kept;
    if (e.contains("comment")) d["comment"] = e["comment"];
    out.push_back(std::move(d));
  }
  for (size_t ei = 0; ei < old.size(); ++ei)
    if (!pairs.count(ei))
      notes.push_back("dropped expected diagnostic " + describe(old[ei]) + " (the CLI no longer reports it)");
  return {out, notes};
}

}  // namespace fc::driver::expect
