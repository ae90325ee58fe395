// Recording what the CLI does into a sidecar (`fusecheck test --update`)
// and writing a sidecar in the canonical layout (see expect.h).
#include <algorithm>

#include "driver/expect_internal.h"

namespace fc::driver::expect {

std::pair<ojson, std::vector<std::string>> recordedDiagnostics(const ojson& old,
                                                               const std::vector<Actual>& actual);

namespace {

const char* const kRunKeys[] = {"comment",     "args",        "format",     "verdict",  "exit",
                                "fixed_by",    "max_seconds", "max_rss_mb", "numerics", "output_contains",
                                "diagnostics", "points"};
const char* const kDiagKeys[] = {"code",          "pointer", "line", "col", "message_contains",
                                 "notes_contain", "comment"};
const char* const kTopKeys[] = {"$schema", "format", "comment", "input", "runs"};
constexpr size_t kWidth = 100;

template <size_t N>
bool inList(const std::string& k, const char* const (&list)[N]) {
  for (const char* x : list)
    if (k == x) return true;
  return false;
}

template <size_t N>
ojson ordered(const ojson& obj, const char* const (&order)[N]) {
  ojson out = ojson::object();
  for (const char* k : order)
    if (obj.contains(k)) out[k] = obj[k];
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!inList(it.key(), order)) out[it.key()] = it.value();
  return out;
}

// Outcomes compared as Python dicts are: whatever the key order.
bool sameOutcome(const ojson& a, const ojson& b) {
  return nlohmann::json::parse(a.dump()) == nlohmann::json::parse(b.dump());
}

std::pair<ojson, std::vector<std::string>> record(const ojson& own, const ojson& merged, const Observed& o) {
  ojson out = ojson::object();
  std::vector<std::string> notes;
  for (auto it = own.begin(); it != own.end(); ++it)
    if (!inList(it.key(), kRecorded)) out[it.key()] = it.value();
  if (auto v = verdictOf(o.exit_code))
    out["verdict"] = *v;
  else
    out["exit"] = o.exit_code;
  if (out.value("verdict", "") != "findings" && out.contains("fixed_by")) {
    notes.push_back("dropped fixed_by " + pyDumps(out["fixed_by"]) + " (the verdict is no longer findings)");
    out.erase("fixed_by");
  }
  if (o.diagnostics) {
    auto [diags, more] = recordedDiagnostics(
        merged.contains("diagnostics") ? merged["diagnostics"] : ojson::array(), *o.diagnostics);
    out["diagnostics"] = diags;
    notes.insert(notes.end(), more.begin(), more.end());
  }
  if (merged.contains("output_contains"))
    for (const auto& s : merged["output_contains"])
      if (o.output.find(s.get<std::string>()) == std::string::npos)
        notes.push_back("output_contains " + pyDumps(s) + " is not in the output: edit it by hand");
  return {out, notes};
}

ojson regroupPoints(const std::vector<std::pair<Spec, ojson>>& spec_outcomes) {
  std::vector<std::pair<std::vector<Spec>, ojson>> groups;
  for (const auto& [spec, outcome] : spec_outcomes) {
    bool placed = false;
    for (auto& g : groups)
      if (sameOutcome(g.second, outcome)) {
        g.first.push_back(spec);
        placed = true;
        break;
      }
    if (!placed) groups.push_back({{spec}, outcome});
  }
  ojson points = ojson::object();
  for (const auto& [specs, outcome] : groups) {
    std::string key;
    for (const Spec& s : specs) key += (key.empty() ? "" : ", ") + formatSpec(s);
    points[key] = outcome;
  }
  return points;
}

std::string inlineJson(const ojson& v) { return pyDumps(v); }

void members(const ojson& obj, size_t indent, std::vector<std::string>& lines);

std::vector<std::string> outcomeLines(const ojson& o_in, size_t indent, const std::string& head) {
  ojson o = ordered(o_in, kOutcomeKeys);
  std::string one = inlineJson(o);
  bool diags = o.contains("diagnostics") && !o["diagnostics"].empty();
  if (!diags && codePoints(head) + codePoints(one) <= kWidth) return {head + one};
  std::vector<std::string> lines{head + "{"};
  members(o, indent + 2, lines);
  lines.push_back(std::string(indent, ' ') + "}");
  return lines;
}

void members(const ojson& obj, size_t indent, std::vector<std::string>& lines) {
  std::string pad(indent, ' ');
  size_t j = 0, n = obj.size();
  for (auto it = obj.begin(); it != obj.end(); ++it, ++j) {
    std::string comma = j + 1 < n ? "," : "";
    const std::string& k = it.key();
    const ojson& v = it.value();
    std::string head = pad + inlineJson(ojson(k)) + ": ";
    if (k == "diagnostics" && v.is_array() && !v.empty()) {
      lines.push_back(head + "[");
      for (size_t i = 0; i < v.size(); ++i)
        lines.push_back(pad + "  " + inlineJson(ordered(v[i], kDiagKeys)) + (i + 1 < v.size() ? "," : ""));
      lines.push_back(pad + "]" + comma);
    } else if (k == "points") {
      lines.push_back(head + "{");
      size_t m = 0;
      for (auto p = v.begin(); p != v.end(); ++p, ++m) {
        std::vector<std::string> body =
            outcomeLines(p.value(), indent + 2, pad + "  " + inlineJson(ojson(p.key())) + ": ");
        if (m + 1 < v.size()) body.back() += ",";
        lines.insert(lines.end(), body.begin(), body.end());
      }
      lines.push_back(pad + "}" + comma);
    } else if (k != "args" && v.is_array() && !v.empty() &&
               codePoints(head) + codePoints(inlineJson(v)) > kWidth) {
      lines.push_back(head + "[");
      for (size_t i = 0; i < v.size(); ++i)
        lines.push_back(pad + "  " + inlineJson(v[i]) + (i + 1 < v.size() ? "," : ""));
      lines.push_back(pad + "]" + comma);
    } else {
      lines.push_back(head + inlineJson(v) + comma);
    }
  }
}

}  // namespace

std::vector<Invocation> updateInvocations(const ojson& run, size_t index) {
  std::vector<Invocation> out;
  std::string fmt = run.value("format", "json");
  std::vector<std::string> args;
  for (const auto& a : run["args"]) args.push_back(a.get<std::string>());
  if (!run.contains("points")) {
    Invocation inv;
    inv.run_index = index;
    inv.args = args;
    inv.format = fmt;
    inv.outcome = mergedOutcome(run, ojson::object());
    out.push_back(std::move(inv));
    return out;
  }
  for (auto it = run["points"].begin(); it != run["points"].end(); ++it)
    for (const Spec& spec : parsePointKey(it.key())) {
      Invocation inv;
      inv.run_index = index;
      inv.args = {args.front()};
      std::vector<std::string> flags = pointFlags(spec);
      inv.args.insert(inv.args.end(), flags.begin(), flags.end());
      inv.args.insert(inv.args.end(), args.begin() + 1, args.end());
      inv.format = fmt;
      inv.outcome = mergedOutcome(run, it.value());
      inv.spec = spec;
      out.push_back(std::move(inv));
    }
  return out;
}

std::pair<ojson, std::vector<std::string>> updateRun(const ojson& run, size_t index,
                                                     const std::vector<std::optional<Observed>>& observed,
                                                     const std::vector<std::string>& cannot_run_notes) {
  std::vector<std::string> notes;
  std::vector<Invocation> invs = updateInvocations(run, index);
  if (!run.contains("points")) {
    ojson own = ojson::object();
    for (const char* k : kOutcomeKeys)
      if (run.contains(k)) own[k] = run[k];
    if (!observed.at(0)) return {run, cannot_run_notes};
    auto [rec, more] = record(own, invs[0].outcome, *observed[0]);
    ojson out = ojson::object();
    for (auto it = run.begin(); it != run.end(); ++it)
      if (!own.contains(it.key())) out[it.key()] = it.value();
    for (auto it = rec.begin(); it != rec.end(); ++it) out[it.key()] = it.value();
    for (const std::string& m : more) notes.push_back("run " + std::to_string(index) + ": " + m);
    return {out, notes};
  }
  std::vector<std::pair<Spec, ojson>> spec_outcomes;
  size_t i = 0, skipped = 0;
  for (auto it = run["points"].begin(); it != run["points"].end(); ++it)
    for (const Spec& spec : parsePointKey(it.key())) {
      const Invocation& inv = invs[i];
      const std::optional<Observed>& o = observed[i++];
      if (!o) {
        if (skipped < cannot_run_notes.size()) notes.push_back(cannot_run_notes[skipped]);
        ++skipped;
        spec_outcomes.push_back({spec, it.value()});
        continue;
      }
      ojson own = ojson::object();
      for (const char* k : kRecorded)
        if (run.contains(k)) own[k] = run[k];
      for (auto p = it.value().begin(); p != it.value().end(); ++p) own[p.key()] = p.value();
      auto [rec, more] = record(own, inv.outcome, *o);
      for (const std::string& m : more) notes.push_back(inv.label() + ": " + m);
      spec_outcomes.push_back({spec, rec});
    }
  ojson out = ojson::object();
  for (auto it = run.begin(); it != run.end(); ++it)
    if (!inList(it.key(), kRecorded)) out[it.key()] = it.value();
  out["points"] = regroupPoints(spec_outcomes);
  return {out, notes};
}

ojson newSidecar(const std::string& repro, const std::vector<std::string>& args) {
  size_t slash = repro.find_last_of('/');
  ojson run = ojson::object();
  run["args"] = args;
  ojson data = ojson::object();
  data["format"] = kFormat;
  data["input"] = slash == std::string::npos ? repro : repro.substr(slash + 1);
  data["runs"] = ojson::array({run});
  return data;
}

ojson migrate(const ojson& data) {
  ojson runs = ojson::array();
  for (ojson run : data["runs"]) {
    if (run.contains("stdout_contains")) {
      run["output_contains"] = run["stdout_contains"];
      run.erase("stdout_contains");
    }
    if (run.contains("exit") && run["exit"].is_number_integer())
      if (auto v = verdictOf(run["exit"].get<int>())) {
        run.erase("exit");
        run["verdict"] = *v;
      }
    std::vector<std::string> args;
    for (const auto& a : run["args"]) args.push_back(a.get<std::string>());
    bool later_point = args.size() > 3 && std::find(args.begin() + 3, args.end(), "--nvfuser") != args.end();
    if (args.size() >= 3 && args[1] == "--nvfuser" && !later_point) {
      std::string point = args[2];
      std::vector<std::string> base{args[0]};
      base.insert(base.end(), args.begin() + 3, args.end());
      ojson outcome = ojson::object();
      std::vector<std::string> keys;
      for (auto it = run.begin(); it != run.end(); ++it) keys.push_back(it.key());
      for (const std::string& k : keys)
        if (inList(k, kOutcomeKeys) && k != "comment" && k != "max_seconds" && k != "max_rss_mb") {
          outcome[k] = run[k];
          run.erase(k);
        }
      run["args"] = base;
      if (!runs.empty() && runs.back().contains("points")) {
        ojson& prev = runs.back();
        bool same = true;
        for (const char* k : {"args", "format", "max_seconds", "max_rss_mb"})
          same &= prev.value(k, ojson(nullptr)) == run.value(k, ojson(nullptr));
        bool known = false;
        for (auto it = prev["points"].begin(); it != prev["points"].end(); ++it)
          for (const Spec& s : parsePointKey(it.key())) known |= s.point == point;
        if (same && !known) {
          prev["points"][point] = outcome;
          continue;
        }
      }
      run["points"] = ojson{{point, outcome}};
    }
    runs.push_back(run);
  }
  ojson out = ojson::object();
  out["format"] = kFormat;
  for (auto it = data.begin(); it != data.end(); ++it)
    if (it.key() != "format" && it.key() != "runs") out[it.key()] = it.value();
  out["runs"] = runs;
  return out;
}

std::string dump(const ojson& data) {
  ojson top = ordered(data, kTopKeys);
  std::vector<std::string> lines{"{"};
  size_t j = 0, n = top.size();
  for (auto it = top.begin(); it != top.end(); ++it, ++j) {
    std::string comma = j + 1 < n ? "," : "";
    if (it.key() == "runs") {
      lines.push_back("  \"runs\": [");
      const ojson& runs = it.value();
      for (size_t i = 0; i < runs.size(); ++i) {
        lines.push_back("    {");
        members(ordered(runs[i], kRunKeys), 6, lines);
        lines.push_back(std::string("    }") + (i + 1 < runs.size() ? "," : ""));
      }
      lines.push_back("  ]" + comma);
    } else {
      lines.push_back("  " + inlineJson(ojson(it.key())) + ": " + inlineJson(it.value()) + comma);
    }
  }
  lines.push_back("}");
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace fc::driver::expect
