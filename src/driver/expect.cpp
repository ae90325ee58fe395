// The expectation format: loading, point specs, expansion into
// invocations (see expect.h).
#include "driver/expect.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "driver/expect_internal.h"
#include "support/escape.h"

namespace fc::driver::expect {
namespace {

const char* const kFrontends[] = {"python", "direct", "cpp"};
const char* const kExecutors[] = {"fec", "mde", "mde-fec", "hostir"};

bool oneOf(const std::string& w, const char* const* list, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (w == list[i]) return true;
  return false;
}
bool isFrontend(const std::string& w) { return oneOf(w, kFrontends, 3); }
bool isExecutor(const std::string& w) { return oneOf(w, kExecutors, 4); }

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  std::string w;
  while (is >> w) out.push_back(w);
  return out;
}

// Python's repr of a float: the shortest text that reads back the same,
// with ".0" on integral values and exponents as 1e-05.
std::string pyFloat(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  size_t e = s.find('e');
  if (e != std::string::npos) {
    // %g writes e-05 / e+20; Python writes 1e-05 and 1e+20 alike.
    return s;
  }
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

// As Python's json.dumps writes v (DEL escaped, floats as repr).
void dumpTo(const ojson& v, std::string& out) {
  switch (v.type()) {
    case ojson::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        appendJsonString(out, it.key(), /*escape_del=*/true);
        out += ": ";
        dumpTo(it.value(), out);
      }
      out += '}';
      break;
    }
    case ojson::value_t::array: {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        dumpTo(v[i], out);
      }
      out += ']';
      break;
    }
    case ojson::value_t::string: appendJsonString(out, v.get<std::string>(), /*escape_del=*/true); break;
    case ojson::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case ojson::value_t::null: out += "null"; break;
    case ojson::value_t::number_float: out += pyFloat(v.get<double>()); break;
    default: out += v.dump(); break;
  }
}

}  // namespace

std::string pyDumps(const ojson& v) {
  std::string out;
  dumpTo(v, out);
  return out;
}

size_t codePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::optional<int> verdictExit(const std::string& v) {
  if (v == "clean") return 0;
  if (v == "findings") return 1;
  if (v == "bad-input") return 2;
  if (v == "not-decided") return 5;
  return std::nullopt;
}

std::optional<std::string> verdictOf(int code) {
  switch (code) {
    case 0: return "clean";
    case 1: return "findings";
    case 2: return "bad-input";
    case 5: return "not-decided";
    default: return std::nullopt;
  }
}

std::optional<std::string> sidecarPath(const std::string& path) {
  const std::string suffix = ".expect.json";
  if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path;
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
  std::string ext = path.substr(dot);
  // The repro forms a sidecar may name: JSON, Python, printed IR and segment dumps, C++ tests,
  // pastes.
  if (ext != ".json" && ext != ".py" && ext != ".txt" && ext != ".cpp" && ext != ".cc" && ext != ".md")
    return std::nullopt;
  return path.substr(0, dot) + suffix;
}

ojson load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error{path + ": cannot read sidecar: cannot open it"};
  std::stringstream ss;
  ss << in.rdbuf();
  ojson data = ojson::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (data.is_discarded()) throw Error{path + ": cannot read sidecar: it is not valid JSON"};
  if (data.is_object() && !data.contains("format") && data.contains("runs"))
    throw Error{path + ": no \"format\": \"" + std::string(kFormat) +
                "\": a sidecar of the earlier format; `fusecheck test --update` rewrites it"};
  std::vector<std::string> problems = validate(data);
  if (!problems.empty()) {
    std::string msg =
        path + ": not a valid " + std::string(kFormat) + " sidecar (schemas/fixture-expect.schema.json):";
    for (const std::string& p : problems) msg += "\n  " + p;
    throw Error{msg};
  }
  return data;
}

std::vector<Spec> parsePointKey(const std::string& key) {
  static const std::regex kPoint("^[0-9A-Za-z][0-9A-Za-z._+~-]*$");
  std::vector<Spec> specs;
  size_t start = 0;
  while (true) {
    size_t comma = key.find(',', start);
    std::string part = key.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::vector<std::string> w = words(part);
    if (w.empty()) throw Error{"points: \"" + key + "\" has an empty spec"};
    Spec s;
    s.point = w[0];
    if (!std::regex_match(s.point, kPoint) || isFrontend(s.point) || isExecutor(s.point))
      throw Error{"points: \"" + trim(part) +
                  "\" does not start with an nvFuser point (a date, commit, version or alias)"};
    for (size_t i = 1; i < w.size(); ++i) {
      if (isFrontend(w[i]) && s.frontend.empty() && s.executor.empty())
        s.frontend = w[i];
      else if (isExecutor(w[i]) && s.executor.empty())
        s.executor = w[i];
      else
        throw Error{
            "points: \"" + trim(part) + "\": \"" + w[i] +
            "\" is not a frontend (python|direct|cpp) or executor (fec|mde|mde-fec|hostir) in that place"};
    }
    specs.push_back(s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return specs;
}

std::string formatSpec(const Spec& s) {
  std::string out = s.point;
  if (!s.frontend.empty()) out += " " + s.frontend;
  if (!s.executor.empty()) out += " " + s.executor;
  return out;
}

std::vector<std::string> pointFlags(const Spec& s) {
  std::vector<std::string> f{"--nvfuser", s.point};
  if (!s.frontend.empty()) f.insert(f.end(), {"--frontend", s.frontend});
  if (!s.executor.empty()) f.insert(f.end(), {"--executor", s.executor});
  return f;
}

ojson mergedOutcome(const ojson& run, const ojson& po) {
  ojson out = ojson::object();
  for (const char* k : kOutcomeKeys)
    if (std::string(k) != "comment" && run.contains(k)) out[k] = run[k];
  if (po.contains("verdict") || po.contains("exit")) {
    out.erase("verdict");
    out.erase("exit");
  }
  for (auto it = po.begin(); it != po.end(); ++it) out[it.key()] = it.value();
  return out;
}

std::string Invocation::label() const {
  std::string at = spec ? " at " + formatSpec(*spec) : "";
  return std::string(kind == Kind::FixedBy ? "fixed_by check " : "run ") + std::to_string(run_index) + at;
}

std::vector<std::string> Invocation::command(const std::string& input) const {
  std::vector<std::string> c = args;
  c.insert(c.end(), {input, "--format", format});
  return c;
}

std::vector<Invocation> expand(const ojson& data) {
  std::vector<Invocation> invs, fixed;
  for (size_t i = 0; i < data["runs"].size(); ++i)
    for (Invocation& inv : updateInvocations(data["runs"][i], i)) {
      // A point with fixed_by: its arguments after `check --matrix
      // --expect-fixed-by N`, once per distinct command.
      if (inv.spec && inv.outcome.contains("fixed_by")) {
        int64_t pr = inv.outcome["fixed_by"].get<int64_t>();
        std::vector<std::string> fargs = inv.args;
        fargs.insert(fargs.begin() + 1, {"--matrix", "--expect-fixed-by", std::to_string(pr)});
        bool dup = false;
        for (const Invocation& f : fixed) dup |= f.args == fargs;
        if (!dup) {
          Invocation f;
          f.run_index = i;
          f.kind = Invocation::Kind::FixedBy;
          f.args = std::move(fargs);
          f.format = "json";
          f.outcome = ojson{{"exit", 0}};
          f.spec = inv.spec;
          f.fixed_by = pr;
          fixed.push_back(std::move(f));
        }
      }
      invs.push_back(std::move(inv));
    }
  invs.insert(invs.end(), fixed.begin(), fixed.end());
  return invs;
}

}  // namespace fc::driver::expect
