// The SARIF 2.1.0 renderer: one run whose tool.driver.rules are every code
// of codes.def (ruleIndex = position there), one result per diagnostic with
// ruleId, level, message, a location (physicalLocation: artifact URI
// relative to the SARIF root, with uriBaseId SRCROOT, and region when
// line:col is known; logicalLocations: the JSON pointer) and
// relatedLocations for the notes that have a location. Notes without one
// are appended to the message text, one per line. Deterministic: keys in a
// fixed order, no timestamps. Linear time.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "diag/render.h"

namespace fc {
namespace {

std::string& rootSetting() {
  static std::string root;
  return root;
}

using ojson = nlohmann::ordered_json;

// Percent-encodes a path into a URI reference (RFC 3986 unreserved
// characters and '/' are kept).
std::string toUri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning:
    case Severity::NotDecided: return "warning";
    case Severity::Note:
    case Severity::Remark: return "note";
  }
  return "error";
}

std::filesystem::path rootPath() {
  std::error_code ec;
  std::filesystem::path root =
      sarifRoot().empty() ? std::filesystem::current_path(ec) : std::filesystem::path(sarifRoot());
  return std::filesystem::weakly_canonical(std::filesystem::absolute(root, ec), ec);
}

ojson artifact(const std::string& file) {
  std::string p = pathFromRoot(file);
  if (!p.empty() && p[0] == '/') return ojson{{"uri", "file://" + toUri(p)}};
  return ojson{{"uri", toUri(p)}, {"uriBaseId", "SRCROOT"}};
}

// A SARIF location object; nullopt when `loc` says nothing.
std::optional<ojson> location(const Location& loc) {
  ojson j = ojson::object();
  if (!loc.file.empty()) {
    ojson phys;
    phys["artifactLocation"] = artifact(loc.file);
    if (loc.known()) {
      ojson region;
      region["startLine"] = loc.line;
      if (loc.col > 0) region["startColumn"] = loc.col;
      phys["region"] = std::move(region);
    }
    j["physicalLocation"] = std::move(phys);
  }
  if (!loc.pointer.empty()) {
    ojson logical;
    logical["fullyQualifiedName"] = loc.pointer;
    logical["kind"] = "value";
    j["logicalLocations"] = ojson::array({std::move(logical)});
  }
  if (j.empty()) return std::nullopt;
  return j;
}

}  // namespace

void setSarifRoot(std::string root) { rootSetting() = std::move(root); }
const std::string& sarifRoot() { return rootSetting(); }

std::string pathFromRoot(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(file, ec), ec);
  fs::path rel = abs.lexically_relative(rootPath());
  std::string r = rel.generic_string();
  if (rel.empty() || r == ".." || r.rfind("../", 0) == 0) return abs.generic_string();
  return r;
}

std::string renderSarif(const std::vector<Diagnostic>& diags, const std::string& tool_version) {
  checkPlacesRendered(diags);
  ojson rules = ojson::array();
  for (const DiagCodeInfo& info : allDiagCodes()) {
    ojson r;
    r["id"] = std::string(info.id);
    r["name"] = std::string(info.slug);
    r["shortDescription"] = ojson{{"text", std::string(info.summary)}};
    r["defaultConfiguration"] = ojson{{"level", "error"}};
    rules.push_back(std::move(r));
  }
  ojson results = ojson::array();
  for (const Diagnostic& d : diags) {
    const DiagCodeInfo& info = diagCodeInfo(d.code);
    ojson r;
    r["ruleId"] = std::string(info.id);
    r["ruleIndex"] = static_cast<int>(d.code);
    r["level"] = level(d.severity);
    std::string text = d.message;
    ojson related = ojson::array();
    int id = 0;
    for (const Note& n : d.notes) {
      auto l = location(n.loc);
      if (!l) {
        text += "\n" + n.kind + ": " + n.message;
        continue;
      }
      (*l)["id"] = id++;
      (*l)["message"] = ojson{{"text", n.kind + ": " + n.message}};
      related.push_back(std::move(*l));
    }
    r["message"] = ojson{{"text", text}};
    if (auto l = location(d.loc)) r["locations"] = ojson::array({std::move(*l)});
    if (!related.empty()) r["relatedLocations"] = std::move(related);
    results.push_back(std::move(r));
  }
  ojson driver;
  driver["name"] = "fusecheck";
  driver["version"] = tool_version;
  driver["rules"] = std::move(rules);
  ojson run;
  run["tool"] = ojson{{"driver", std::move(driver)}};
  std::string root_dir = rootPath().generic_string();
  if (root_dir.empty() || root_dir.back() != '/') root_dir += '/';
  run["originalUriBaseIds"] = ojson{{"SRCROOT", ojson{{"uri", "file://" + toUri(root_dir)}}}};
  run["columnKind"] = "utf16CodeUnits";
  run["results"] = std::move(results);
  ojson root;
  root["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  root["version"] = "2.1.0";
  root["runs"] = ojson::array({std::move(run)});
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fc
