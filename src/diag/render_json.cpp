// The JSON renderer for diagnostics:
//   {"diagnostics": [{"severity", "code", "slug", "message",
//                     "location": {"file", "pointer", "line", "col"},
//                     "notes": [{"kind", "message", "location"}],
//                     "nvfuser": {"check", "file", "line", "commit", "message", "path"}}]}
// ("nvfuser" only on findings that name the nvFuser check they stand for).
// Keys in this order; line / col are null when unknown. Invalid UTF-8 in
// messages (echoed user text) is replaced, never thrown on. Linear time.
#include <nlohmann/json.hpp>

#include "diag/render.h"

namespace fc {
namespace {

using ojson = nlohmann::ordered_json;

ojson location(const Location& loc) {
  ojson j;
  j["file"] = loc.file;
  j["pointer"] = loc.pointer;
  j["line"] = loc.known() ? ojson(loc.line) : ojson(nullptr);
  j["col"] = loc.known() && loc.col > 0 ? ojson(loc.col) : ojson(nullptr);
  return j;
}

Location readLocation(const ojson& j) {
  Location l;
  if (!j.is_object()) return l;
  if (j.contains("file") && j["file"].is_string()) l.file = j["file"].get<std::string>();
  if (j.contains("pointer") && j["pointer"].is_string()) l.pointer = j["pointer"].get<std::string>();
  if (j.contains("line") && j["line"].is_number_integer()) l.line = j["line"].get<int>();
  if (j.contains("col") && j["col"].is_number_integer()) l.col = j["col"].get<int>();
  return l;
}

std::optional<Diagnostic> readDiagnostic(const ojson& j) {
  if (!j.is_object() || !j.contains("code") || !j["code"].is_string()) return std::nullopt;
  Diagnostic d;
  std::string code = j["code"].get<std::string>();
  bool known = false;
  for (const DiagCodeInfo& info : allDiagCodes())
    if (info.id == code) d.code = info.code, known = true;
  if (!known) return std::nullopt;
  std::string sev = j.value("severity", "error");
  d.severity = sev == "warning"  ? Severity::Warning
               : sev == "note"   ? Severity::Note
               : sev == "remark" ? Severity::Remark
                                 : Severity::Error;
  d.message = j.value("message", "");
  if (j.contains("location")) d.loc = readLocation(j["location"]);
  if (j.contains("notes") && j["notes"].is_array())
    for (const ojson& n : j["notes"]) {
      if (!n.is_object()) continue;
      Note note;
      note.kind = n.value("kind", "note");
      note.message = n.value("message", "");
      if (n.contains("location")) note.loc = readLocation(n["location"]);
      d.notes.push_back(std::move(note));
    }
  return d;
}

void collect(const ojson& j, std::vector<Diagnostic>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "diagnostics" && it.value().is_array()) {
        for (const ojson& d : it.value())
          if (auto diag = readDiagnostic(d)) out.push_back(std::move(*diag));
      } else {
        collect(it.value(), out);
      }
    }
  } else if (j.is_array()) {
    for (const ojson& x : j) collect(x, out);
  }
}

}  // namespace

std::optional<std::vector<Diagnostic>> diagnosticsFromJson(std::string_view text) {
  ojson j = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  std::vector<Diagnostic> out;
  collect(j, out);
  return out;
}

std::string renderJson(const std::vector<Diagnostic>& diags) {
  checkPlacesRendered(diags);
  ojson arr = ojson::array();
  for (const Diagnostic& d : diags) {
    const DiagCodeInfo& info = diagCodeInfo(d.code);
    ojson j;
    j["severity"] = std::string(severityName(d.severity));
    j["code"] = std::string(info.id);
    j["slug"] = std::string(info.slug);
    j["message"] = d.message;
    j["location"] = location(d.loc);
    ojson notes = ojson::array();
    for (const Note& n : d.notes) {
      ojson nj;
      nj["kind"] = n.kind;
      nj["message"] = n.message;
      nj["location"] = location(n.loc);
      notes.push_back(std::move(nj));
    }
    j["notes"] = std::move(notes);
    if (d.nvfuser) {
      const Citation& c = *d.nvfuser;
      j["nvfuser"] = {{"check", c.check},   {"file", c.file},       {"line", c.line},
                      {"commit", c.commit}, {"message", c.message}, {"path", c.path}};
    }
    arr.push_back(std::move(j));
  }
  ojson root;
  root["diagnostics"] = std::move(arr);
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fc
