// Validating a sidecar: the JSON Schema keywords the format's schema uses
// (a schema using any other is refused, so it cannot say more than is
// checked), then the rules the schema cannot say. Messages are worded as
// the project's runner words them.
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "driver/expect_internal.h"
#include "io/place_pointer.h"

namespace fc::driver::expect {
namespace {

const std::set<std::string> kAnnotations = {"$schema", "$id",         "$defs",   "$comment",
                                            "title",   "description", "default", "examples"};

std::string where(const std::string& w) { return w.empty() ? "/" : w; }

std::string shortDump(const ojson& v) {
  std::string s = pyDumps(v);
  // Python slices code points; cut on a character boundary.
  size_t n = 0, i = 0;
  while (i < s.size() && n < 60) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    ++n;
  }
  return s.substr(0, std::min(i, s.size()));
}

bool isInteger(const ojson& v) {
  if (v.is_number_integer()) return true;
  if (v.is_number_float()) {
    double d = v.get<double>();
    return std::isfinite(d) && std::floor(d) == d;
  }
  return false;
}

bool hasType(const ojson& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return isInteger(v);
  if (t == "number") return v.is_number();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  return false;
}

bool jsonEqual(const ojson& a, const ojson& b) {
  if (a.is_boolean() || b.is_boolean()) return a.is_boolean() && b.is_boolean() && a == b;
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

class Validator {
 public:
  explicit Validator(ojson schema) : root_(std::move(schema)) {}

  std::vector<std::string> errors(const ojson& instance) {
    std::vector<std::string> out;
    check(root_, instance, "", out);
    return out;
  }

 private:
  ojson root_;
  std::map<std::string, std::regex> regexes_;

  const ojson& resolve(const std::string& ref) {
    if (ref.rfind("#/", 0) != 0) throw Error{"schema: unsupported $ref " + ref};
    const ojson* node = &root_;
    size_t i = 2;
    while (i <= ref.size()) {
      size_t slash = ref.find('/', i);
      std::string part = ref.substr(i, slash == std::string::npos ? std::string::npos : slash - i);
      node = &node->at(part);
      if (slash == std::string::npos) break;
      i = slash + 1;
    }
    return *node;
  }

  const std::regex& regex(const std::string& pattern) {
    auto it = regexes_.find(pattern);
    if (it == regexes_.end())
      it = regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
    return it->second;
  }

  void check(const ojson& s, const ojson& v, const std::string& w, std::vector<std::string>& out) {
    if (s.is_boolean()) {
      if (!s.get<bool>()) out.push_back(where(w) + ": not allowed");
      return;
    }
    static const std::set<std::string> kKeywords = {"$ref",
                                                    "type",
                                                    "enum",
                                                    "const",
                                                    "required",
                                                    "properties",
                                                    "additionalProperties",
                                                    "propertyNames",
                                                    "items",
                                                    "minItems",
                                                    "minProperties",
                                                    "minLength",
                                                    "pattern",
                                                    "minimum",
                                                    "maximum",
                                                    "exclusiveMinimum",
                                                    "not"};
    std::vector<std::string> unknown;
    for (auto it = s.begin(); it != s.end(); ++it)
      if (!kAnnotations.count(it.key()) && !kKeywords.count(it.key())) unknown.push_back(it.key());
    if (!unknown.empty()) {
      std::sort(unknown.begin(), unknown.end());
      std::string list;
      for (const std::string& u : unknown) list += (list.empty() ? "'" : ", '") + u + "'";
      throw Error{"schema: keyword(s) the runner does not implement: [" + list + "]"};
    }
    // The keywords in the schema's own order, as the project's runner goes.
    for (auto it = s.begin(); it != s.end(); ++it) keyword(it.key(), s, v, w, out);
  }

  void keyword(const std::string& k, const ojson& s, const ojson& v, const std::string& w,
               std::vector<std::string>& out) {
    if (k == "$ref") {
      check(resolve(s["$ref"].get<std::string>()), v, w, out);
    } else if (k == "type") {
      std::vector<std::string> types;
      if (s["type"].is_array())
        for (const auto& t : s["type"]) types.push_back(t.get<std::string>());
      else
        types.push_back(s["type"].get<std::string>());
      bool ok = false;
      for (const std::string& t : types) ok |= hasType(v, t);
      if (!ok) {
        std::string list;
        for (const std::string& t : types) list += (list.empty() ? "" : " or ") + t;
        out.push_back(where(w) + ": expected " + list + ", found " + shortDump(v));
      }
    } else if (k == "enum") {
      bool ok = false;
      std::string list;
      for (const auto& e : s["enum"]) {
        ok |= jsonEqual(v, e);
        list += (list.empty() ? "" : ", ") + pyDumps(e);
      }
      if (!ok) out.push_back(where(w) + ": " + shortDump(v) + " is not one of " + list);
    } else if (k == "const") {
      if (!jsonEqual(v, s["const"]))
        out.push_back(where(w) + ": expected " + pyDumps(s["const"]) + ", found " + shortDump(v));
    } else if (k == "required") {
      if (v.is_object())
        for (const auto& r : s["required"])
          if (!v.contains(r.get<std::string>()))
            out.push_back(where(w) + ": missing key \"" + r.get<std::string>() + "\"");
    } else if (k == "properties") {
      if (v.is_object())
        for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it)
          if (v.contains(it.key())) check(it.value(), v[it.key()], w + "/" + it.key(), out);
    } else if (k == "additionalProperties") {
      if (!v.is_object()) return;
      std::set<std::string> known;
      if (s.contains("properties"))
        for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) known.insert(it.key());
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (known.count(it.key())) continue;
        const ojson& ap = s["additionalProperties"];
        if (ap.is_boolean() && !ap.get<bool>()) {
          std::string allowed;
          for (const std::string& a : known) allowed += (allowed.empty() ? "" : ", ") + a;
          out.push_back(where(w) + ": unknown key \"" + it.key() + "\" (allowed: " + allowed + ")");
        } else {
          check(ap, it.value(), w + "/" + it.key(), out);
        }
      }
    } else if (k == "propertyNames") {
      if (v.is_object())
        for (auto it = v.begin(); it != v.end(); ++it)
          check(s["propertyNames"], ojson(it.key()), w + "/" + it.key() + " (key)", out);
    } else if (k == "items") {
      if (v.is_array())
        for (size_t i = 0; i < v.size(); ++i) check(s["items"], v[i], w + "/" + std::to_string(i), out);
    } else if (k == "minItems") {
      if (v.is_array() && v.size() < s["minItems"].get<size_t>())
        out.push_back(where(w) + ": needs at least " + std::to_string(s["minItems"].get<size_t>()) +
                      " item(s)");
    } else if (k == "minProperties") {
      if (v.is_object() && v.size() < s["minProperties"].get<size_t>())
        out.push_back(where(w) + ": needs at least " + std::to_string(s["minProperties"].get<size_t>()) +
                      " key(s)");
    } else if (k == "minLength") {
      if (v.is_string() && codePoints(v.get<std::string>()) < s["minLength"].get<size_t>())
        out.push_back(where(w) + ": needs at least " + std::to_string(s["minLength"].get<size_t>()) +
                      " character(s)");
    } else if (k == "pattern") {
      if (v.is_string() && !std::regex_search(v.get<std::string>(), regex(s["pattern"].get<std::string>()))) {
        std::string form =
            s.contains("description") ? s["description"].get<std::string>() : s["pattern"].get<std::string>();
        out.push_back(where(w) + ": " + pyDumps(v) + " does not have the form " + form);
      }
    } else if (k == "minimum") {
      if (v.is_number() && !v.is_boolean() && v.get<double>() < s["minimum"].get<double>())
        out.push_back(where(w) + ": " + pyDumps(v) + " is below " + pyDumps(s["minimum"]));
    } else if (k == "maximum") {
      if (v.is_number() && !v.is_boolean() && v.get<double>() > s["maximum"].get<double>())
        out.push_back(where(w) + ": " + pyDumps(v) + " is above " + pyDumps(s["maximum"]));
    } else if (k == "exclusiveMinimum") {
      if (v.is_number() && !v.is_boolean() && v.get<double>() <= s["exclusiveMinimum"].get<double>())
        out.push_back(where(w) + ": " + pyDumps(v) + " must be above " + pyDumps(s["exclusiveMinimum"]));
    } else if (k == "not") {
      std::vector<std::string> sub;
      check(s["not"], v, w, sub);
      if (sub.empty()) {
        const ojson& n = s["not"];
        if (n.is_object() && n.size() == 1 && n.contains("required")) {
          std::string list;
          for (const auto& r : n["required"]) list += (list.empty() ? "" : " and ") + r.get<std::string>();
          out.push_back(where(w) + ": has " + list + "; give only one");
        } else {
          out.push_back(where(w) + ": must not match " + pyDumps(n));
        }
      }
    }
  }
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::vector<std::string> runRules(const ojson& run) {
  std::vector<std::string> problems;
  std::vector<ojson> outcomes;
  const bool has_points = run.contains("points");
  std::vector<std::string> args;
  for (const auto& a : run["args"]) args.push_back(a.get<std::string>());
  if (has_points) {
    std::vector<Spec> seen;
    const ojson& points = run["points"];
    for (auto it = points.begin(); it != points.end(); ++it) {
      std::vector<Spec> specs;
      try {
        specs = parsePointKey(it.key());
      } catch (const Error& e) {
        problems.push_back(e.message);
        continue;
      }
      for (const Spec& sp : specs) {
        if (std::find(seen.begin(), seen.end(), sp) != seen.end())
          problems.push_back("points: \"" + formatSpec(sp) + "\" appears twice");
        seen.push_back(sp);
      }
    }
    std::vector<std::string> flags;
    for (const char* f : {"--executor", "--frontend", "--nvfuser"})
      if (contains(args, f)) flags.push_back(f);
    if (!flags.empty()) {
      std::string list;
      for (const std::string& f : flags) list += (list.empty() ? "" : ", ") + f;
      problems.push_back("args give " + list + " and the run has points: the points set them");
    }
    for (auto it = points.begin(); it != points.end(); ++it)
      outcomes.push_back(mergedOutcome(run, it.value()));
  } else {
    outcomes.push_back(mergedOutcome(run, ojson::object()));
  }
  for (const ojson& o : outcomes) {
    if (!o.contains("fixed_by")) continue;
    if (!o.contains("verdict") || o["verdict"] != "findings")
      problems.push_back("fixed_by needs \"verdict\": \"findings\" (the findings that PR fixes)");
    if (args.front() != "check")
      problems.push_back("fixed_by is checked with `check --matrix --expect-fixed-by`: only on check runs");
    if (!has_points)
      problems.push_back("fixed_by belongs to a point (the profile whose findings the PR fixes)");
  }
  if (run.value("format", "json") == "text")
    for (const ojson& o : outcomes)
      if (o.contains("diagnostics")) {
        problems.push_back("a text run has no \"diagnostics\" (use output_contains, or a JSON run)");
        break;
      }
  return problems;
}

}  // namespace

std::vector<std::string> schemaErrors(const ojson& data) {
  static const ojson schema = ojson::parse(schemaText());
  Validator v(schema);
  return v.errors(data);
}

std::vector<std::string> validate(const ojson& data) {
  std::vector<std::string> problems = schemaErrors(data);
  if (!problems.empty()) return problems;
  for (size_t i = 0; i < data["runs"].size(); ++i)
    for (const std::string& p : runRules(data["runs"][i]))
      problems.push_back(jsonPointer(Place::run(i)) + ": " + p);
  return problems;
}

}  // namespace fc::driver::expect
