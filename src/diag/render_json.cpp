// The JSON renderer for diagnostics:
//   {"diagnostics": [{"severity", "code", "slug", "message",
//                     "location": {"file", "pointer", "line", "col"},
//                     "notes": [{"kind", "message", "location"}]}]}
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

}  // namespace

std::string renderJson(const std::vector<Diagnostic>& diags) {
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
    arr.push_back(std::move(j));
  }
  ojson root;
  root["diagnostics"] = std::move(arr);
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fc
