// `fusecheck test --update`: rewrites a sidecar from what the CLI does now
// (driver/expect.h records it as the project's runner does).
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/test_internal.h"
#include "support/escape.h"

namespace fc::driver::testcmd {
namespace {

namespace fs = std::filesystem;
using expect::Error;
using expect::ojson;

expect::Observed observe(Cli& cli, const std::string& folder, const std::string& input,
                         const expect::Invocation& inv) {
  std::vector<std::string> args = inv.command(input);
  ChildResult c = cli.run(args, folder);
  std::string cmd = "fusecheck";
  for (const std::string& a : args) cmd += " " + a;
  if (!c.started) throw Error{c.error};
  if (c.timed_out) throw Error{"timed out: `" + cmd + "`"};
  if (c.exit_code < 0)
    throw Error{"`" + cmd + "` was killed by signal " + std::to_string(-c.exit_code) +
                "; not recording a crash"};
  expect::Observed o;
  o.exit_code = c.exit_code;
  if (inv.format == "text") {
    o.output = c.out + c.err;
    return o;
  }
  ojson doc = ojson::parse(c.out, nullptr, false);
  if (doc.is_discarded()) throw Error{"stdout of `" + cmd + "` is not JSON"};
  o.diagnostics = expect::actualDiagnostics(doc);
  o.output = c.out;
  return o;
}

std::vector<std::string> defaultNewArgs(const std::string& repro) {
  size_t dot = repro.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : repro.substr(dot);
  if (ext == ".json") return {"validate"};
  if (ext == ".py") return {"import", "--from", "nvfuser-python"};
  throw Error{repro + ": say what to run with --new-args (e.g. \"import --from nvfuser-ir\")"};
}

}  // namespace

std::pair<std::vector<std::string>, std::vector<std::string>> updateSidecar(
    Cli& cli, const std::string& path, const std::vector<std::string>& new_args) {
  std::vector<std::string> lines;
  try {
    auto side_opt = expect::sidecarPath(path);
    if (!side_opt) throw Error{path + ": expected an X.expect.json sidecar or a repro X.json, X.py, X.txt"};
    const std::string side = *side_opt;
    ojson data;
    std::optional<std::string> old;
    if (fs::exists(side)) {
      std::ifstream in(side, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      old = ss.str();
      data = ojson::parse(*old, nullptr, false);
      if (data.is_discarded()) throw Error{side + ": cannot read sidecar: it is not valid JSON"};
      if (data.is_object() && !data.contains("format") && data.contains("runs") && data["runs"].is_array())
        data = expect::migrate(data);
    } else if (side == path) {
      throw Error{side + " does not exist (pass the repro to create it)"};
    } else {
      data = expect::newSidecar(path, new_args.empty() ? defaultNewArgs(path) : new_args);
    }
    auto check = [&](const ojson& d) {
      std::vector<std::string> problems = expect::validate(d);
      if (problems.empty()) return;
      std::string msg = side + ": not a valid " + std::string(expect::kFormat) + " sidecar:";
      for (const std::string& p : problems) msg += "\n  " + p;
      throw Error{msg};
    };
    check(data);
    fs::path folder = fs::absolute(fs::path(side)).parent_path();
    std::string input = data["input"].get<std::string>();
    if (!fs::exists(folder / input)) throw Error{side + ": input " + input + " does not exist beside it"};
    ojson runs = ojson::array();
    for (size_t i = 0; i < data["runs"].size(); ++i) {
      const ojson& run = data["runs"][i];
      std::vector<std::optional<expect::Observed>> observed;
      std::vector<std::string> kept;
      for (const expect::Invocation& inv : expect::updateInvocations(run, i)) {
        if (auto why = cli.cannotRun(inv)) {
          kept.push_back(inv.label() + ": kept as written: " + *why);
          observed.push_back(std::nullopt);
          continue;
        }
        observed.push_back(observe(cli, folder.string(), input, inv));
      }
      auto [updated, notes] = expect::updateRun(run, i, observed, kept);
      runs.push_back(updated);
      for (const std::string& n : notes) lines.push_back("  note: " + n);
    }
    data["runs"] = runs;
    check(data);
    std::string text = expect::dump(data);
    if (!old || text != *old) {
      std::ofstream o(side, std::ios::binary | std::ios::trunc);
      o << text;
      if (!o) throw Error{"cannot write " + side};
      lines.insert(lines.begin(), "updated " + side);
    }
    return {lines, {}};
  } catch (const Error& e) {
    return {lines, {e.message}};
  }
}

namespace {

// XML 1.0 allows tab, newline and carriage return among the control
// characters; the others become '?'.
std::string xmlEscape(const std::string& s) {
  static constexpr EscapeTable kXml = kMarkupEscapes.with('\'', "&apos;");
  return escaped(s, kXml, ReplaceControls{"\t\n\r", "?"});
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

std::string junitXml(const std::vector<SidecarResult>& results, double total) {
  size_t failures = 0, skipped = 0;
  for (const SidecarResult& r : results) {
    failures += r.status == SidecarResult::Status::Fail;
    skipped += r.status == SidecarResult::Status::Skip;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"fusecheck test\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
       std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
       seconds(total) + "\">\n";
  x += "  <testsuite name=\"fusecheck test\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
       std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
       seconds(total) + "\">\n";
  for (const SidecarResult& r : results) {
    fs::path p(r.path);
    std::string name = p.filename().string();
    if (name.size() > 12) name.resize(name.size() - 12);  // ".expect.json"
    std::string cls = p.parent_path().string();
    for (char& c : cls)
      if (c == '/') c = '.';
    x += "    <testcase classname=\"" + xmlEscape(cls.empty() ? "." : cls) + "\" name=\"" + xmlEscape(name) +
         "\" file=\"" + xmlEscape(r.path) + "\" time=\"" + seconds(r.seconds) + "\"";
    if (r.status == SidecarResult::Status::Pass) {
      x += "/>\n";
      continue;
    }
    x += ">\n";
    std::string body;
    for (const std::string& s : r.problems) body += s + "\n";
    for (const std::string& s : r.skips) body += s + "\n";
    if (r.status == SidecarResult::Status::Fail)
      x += "      <failure message=\"" + xmlEscape(std::to_string(r.problems.size()) + " problem(s)") +
           "\" type=\"FC0701\">" + xmlEscape(body) + "</failure>\n";
    else
      x +=
          "      <skipped message=\"" + xmlEscape(r.skips.front()) + "\">" + xmlEscape(body) + "</skipped>\n";
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace fc::driver::testcmd
