// Checking one sidecar against what the CLI does (test_internal.h), as
// the project's runner (tests/run_fixture.py) checks it.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "diag/source.h"
#include "driver/expect_internal.h"
#include "driver/test_internal.h"
#include "io/json_locate.h"

namespace fc::driver::testcmd {
namespace {

namespace fs = std::filesystem;
using expect::Error;
using expect::ojson;

bool hasOption(const std::string& help, const std::string& option) {
  size_t pos = 0;
  while ((pos = help.find(option, pos)) != std::string::npos) {
    bool start = pos == 0 || help[pos - 1] == '\n' || help[pos - 1] == ' ' || help[pos - 1] == '\t' ||
                 help[pos - 1] == ',' || help[pos - 1] == '\r' || help[pos - 1] == '\f' ||
                 help[pos - 1] == '\v';
    size_t end = pos + option.size();
    bool stop = end >= help.size() || !(std::isalnum(static_cast<unsigned char>(help[end])) ||
                                        help[end] == '_' || help[end] == '-');
    if (start && stop) return true;
    pos = end;
  }
  return false;
}

std::optional<std::vector<std::string>> nvfuserChoices(const std::string& help) {
  static const std::regex kChoices("--nvfuser\\s+\\S*?:\\{([^}]*)\\}");
  std::smatch m;
  if (!std::regex_search(help, m, kChoices)) return std::nullopt;
  std::vector<std::string> out;
  std::string list = m[1].str();
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string c = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t b = c.find_first_not_of(" \t"), e = c.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : c.substr(b, e - b + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string verdictText(int code) {
  auto name = expect::verdictOf(code);
  return name ? std::to_string(code) + " (" + *name + ")" : std::to_string(code);
}

std::optional<int> expectedExit(const ojson& o) {
  if (o.contains("verdict")) return expect::verdictExit(o["verdict"].get<std::string>());
  if (o.contains("exit")) return o["exit"].get<int>();
  return std::nullopt;
}

std::string tail(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

std::pair<double, double> limitScales() {
  const char* san = std::getenv("FC_FIXTURE_SANITIZED");
  if (san && *san && std::string(san) != "0") {
    const char* t = std::getenv("FC_FIXTURE_TIME_SCALE");
    const char* r = std::getenv("FC_FIXTURE_RSS_SCALE");
    return {t ? std::atof(t) : 10.0, r ? std::atof(r) : 8.0};
  }
  return {1.0, 1.0};
}

std::string fmtNumber(double v, const char* f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The command as a user reads it: `fusecheck ARGS`.
std::string commandText(const std::vector<std::string>& args) {
  std::string s = "fusecheck";
  for (const std::string& a : args) s += " " + a;
  return s.size() > 300 ? s.substr(0, 300) : s;
}

std::pair<std::vector<std::string>, std::vector<std::string>> checkInvocation(Cli& cli,
                                                                              const std::string& folder,
                                                                              const std::string& input,
                                                                              const expect::Invocation& inv) {
  const ojson& o = inv.outcome;
  std::vector<std::string> args = inv.command(input);
  ChildResult c = cli.run(args, folder);
  if (!c.started) throw Error{c.error};
  if (c.timed_out)
    throw Error{"timed out after " + fmtNumber(kTimeoutSeconds, "%g") + " s: " + commandText(args)};
  std::string label = inv.label() + " (`" + commandText(args) + "`)";
  std::vector<std::string> problems, skips;
  auto [time_scale, rss_scale] = limitScales();
  if (o.contains("max_seconds") || o.contains("max_rss_mb")) {
    auto [base_s, base_mb] = cli.baseline();
    if (o.contains("max_seconds") && c.cpu_seconds - base_s > o["max_seconds"].get<double>() * time_scale)
      problems.push_back("took " + fmtNumber(c.cpu_seconds, "%.2f") + " s of CPU (" +
                         fmtNumber(base_s, "%.2f") + " s at start-up), limit " +
                         fmtNumber(o["max_seconds"].get<double>() * time_scale, "%g") + " s beyond start-up");
    if (o.contains("max_rss_mb") && c.max_rss_mb - base_mb > o["max_rss_mb"].get<double>() * rss_scale)
      problems.push_back("peak memory " + fmtNumber(c.max_rss_mb, "%.0f") + " MiB (" +
                         fmtNumber(base_mb, "%.0f") + " MiB at start-up), limit " +
                         fmtNumber(o["max_rss_mb"].get<double>() * rss_scale, "%g") + " MiB beyond start-up");
  }
  if (c.exit_code < 0) problems.push_back("killed by signal " + std::to_string(-c.exit_code) + " (a crash)");
  if (auto want = expectedExit(o); want && c.exit_code != *want)
    problems.push_back("exit " + verdictText(c.exit_code) + ", expected " + verdictText(*want));
  if (inv.format == "json" && o.contains("diagnostics")) {
    ojson doc = ojson::parse(c.out, nullptr, false);
    if (doc.is_discarded()) {
      problems.push_back("stdout of `" + commandText(args) + "` is not JSON\n--- stdout ---\n" +
                         tail(c.out, 2000) + "\n--- stderr ---\n" + tail(c.err, 2000));
    } else {
      try {
        for (std::string& p : expect::compareDiagnostics(o["diagnostics"], expect::actualDiagnostics(doc)))
          problems.push_back(std::move(p));
      } catch (const Error& e) {
        problems.push_back(e.message);
      }
    }
  }
  std::string text = inv.format == "text" ? c.out + c.err : c.out;
  if (o.contains("output_contains"))
    for (const auto& s : o["output_contains"]) {
      std::string want = s.get<std::string>();
      if (text.find(want) == std::string::npos)
        problems.push_back("output lacks " + expect::pyDumps(s) +
                           (c.err.find(want) != std::string::npos ? " (it is on stderr)" : ""));
    }
  if (o.contains("numerics"))
    skips.push_back(inv.label() + ": numerics expectations are not checked by this runner yet");
  bool blank = c.err.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!problems.empty() && !blank) problems.push_back("stderr:\n" + tail(c.err, 2000));
  for (std::string& p : problems) p = label + ": " + p;
  return {problems, skips};
}

// "/runs/0/diagnostics/0/code: ..." -> "/runs/0/diagnostics/0/code".
std::string leadingPointer(const std::string& problem) {
  if (problem.empty() || problem[0] != '/') return "";
  size_t colon = problem.find(": ");
  std::string p = problem.substr(0, colon);
  size_t space = p.find(' ');
  return space == std::string::npos ? p : p.substr(0, space);
}

void locate(SidecarResult& r) {
  std::ifstream in(r.path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  SourceText src(r.path, ss.str());
  fillLocations(r.diagnostics, src);
}

Diagnostic diagnosticFor(Severity sev, DiagCode code, const std::string& text, const std::string& file,
                         const Location& where) {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  size_t nl = text.find('\n');
  d.message = text.substr(0, nl);
  if (nl != std::string::npos) d.note(text.substr(nl + 1));
  d.loc = where;
  d.loc.file = file;
  return d;
}

}  // namespace

ChildResult Cli::run(const std::vector<std::string>& args, const std::string& folder) const {
  std::vector<std::string> argv{path_};
  argv.insert(argv.end(), args.begin(), args.end());
  return runChild(argv, folder, kTimeoutSeconds);
}

std::pair<double, double> Cli::baseline() {
  std::lock_guard<std::mutex> lock(m_);
  if (!baseline_) {
    double s = 1e300, mb = 1e300;
    for (int i = 0; i < 2; ++i) {
      ChildResult c = run({"--version"}, "");
      s = std::min(s, c.cpu_seconds);
      mb = std::min(mb, c.max_rss_mb);
    }
    baseline_ = {s, mb};
  }
  return *baseline_;
}

std::string Cli::help(const std::string& sub) {
  std::lock_guard<std::mutex> lock(m_);
  auto it = help_.find(sub);
  if (it != help_.end()) return it->second;
  ChildResult c = run({sub, "--help"}, "");
  if (!c.started || c.exit_code != 0)
    throw Error{"`" + path_ + " " + sub + " --help` exited " + std::to_string(c.exit_code) +
                ": cannot tell which options it takes\n" + tail(c.err, 500)};
  return help_[sub] = c.out;
}

std::optional<std::string> Cli::cannotRun(const expect::Invocation& inv) {
  if (!inv.spec) return std::nullopt;
  const std::string& sub = inv.args.front();
  std::string text = help(sub);
  if (!hasOption(text, "--nvfuser"))
    throw Error{inv.label() + ": `" + sub + "` takes no --nvfuser, so the run cannot have points"};
  if (inv.kind == expect::Invocation::Kind::FixedBy && !hasOption(text, "--expect-fixed-by"))
    return "fixed_by " + std::to_string(inv.fixed_by) + ": this CLI's `" + sub + "` has no --expect-fixed-by";
  auto choices = nvfuserChoices(text);
  if (inv.kind == expect::Invocation::Kind::Run && choices &&
      std::find(choices->begin(), choices->end(), inv.spec->point) == choices->end()) {
    std::string list;
    for (const std::string& c : *choices) list += (list.empty() ? "" : ", ") + c;
    return "point " + inv.spec->point + ": this CLI's --nvfuser takes only " + list;
  }
  for (auto [flag, value] : {std::pair<std::string, std::string>{"--frontend", inv.spec->frontend},
                             std::pair<std::string, std::string>{"--executor", inv.spec->executor}})
    if (!value.empty() && !hasOption(text, flag))
      return flag + " " + value + ": this CLI's `" + sub + "` has no " + flag;
  return std::nullopt;
}

SidecarResult checkSidecar(Cli& cli, const std::string& path) {
  SidecarResult r;
  r.path = path;
  auto start = std::chrono::steady_clock::now();
  bool invalid = false;
  try {
    ojson data;
    try {
      data = expect::load(path);
    } catch (const Error&) {
      invalid = true;
      throw;
    }
    fs::path folder = fs::absolute(fs::path(path)).parent_path();
    std::string input = data["input"].get<std::string>();
    if (!fs::exists(folder / input)) {
      invalid = true;
      throw Error{path + ": input " + input + " does not exist beside it"};
    }
    for (const expect::Invocation& inv : expect::expand(data)) {
      const Location run = Location::at(path, Place::run(inv.run_index));
      if (auto why = cli.cannotRun(inv)) {
        r.skips.push_back(inv.label() + ": skipped: " + *why);
        r.diagnostics.push_back(
            diagnosticFor(Severity::Warning, DiagCode::ExpectationSkipped, r.skips.back(), path, run));
        continue;
      }
      auto [problems, skips] = checkInvocation(cli, folder.string(), input, inv);
      for (const std::string& p : problems) {
        if (p.find(": stderr:\n") != std::string::npos && !r.diagnostics.empty() &&
            r.diagnostics.back().code == DiagCode::ExpectationNotMet) {
          r.diagnostics.back().note(p.substr(p.find("stderr:\n")));
        } else {
          r.diagnostics.push_back(diagnosticFor(Severity::Error, DiagCode::ExpectationNotMet, p, path, run));
        }
      }
      for (const std::string& s : skips)
        r.diagnostics.push_back(diagnosticFor(Severity::Warning, DiagCode::ExpectationSkipped, s, path, run));
      r.problems.insert(r.problems.end(), problems.begin(), problems.end());
      r.skips.insert(r.skips.end(), skips.begin(), skips.end());
      ++r.ran;
    }
  } catch (const Error& e) {
    r.problems = {e.message};
    r.skips.clear();
    r.ran = 0;
    r.diagnostics.clear();
    // A sidecar that does not load lists its problems one per line after the first.
    std::istringstream lines(e.message);
    std::string first, line;
    std::getline(lines, first);
    Diagnostic d =
        diagnosticFor(Severity::Error, invalid ? DiagCode::ExpectationInvalid : DiagCode::ExpectationNotMet,
                      first, path, Location{path});
    bool listed = false;
    while (std::getline(lines, line)) {
      size_t b = line.find_first_not_of(' ');
      std::string p = b == std::string::npos ? "" : line.substr(b);
      if (invalid && !p.empty() && p[0] == '/') {
        r.diagnostics.push_back(diagnosticFor(Severity::Error, DiagCode::ExpectationInvalid, p, path,
                                              Location{path, leadingPointer(p)}));
        listed = true;
      } else if (!p.empty()) {
        d.note(p);
      }
    }
    if (!listed) r.diagnostics.insert(r.diagnostics.begin(), d);
  }
  r.status = !r.problems.empty() ? SidecarResult::Status::Fail
             : !r.skips.empty()  ? SidecarResult::Status::Skip
                                 : SidecarResult::Status::Pass;
  locate(r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::optional<std::vector<std::string>> sidecarsOf(const std::string& path, bool update) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> out;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::string p = it->path().string();
      if (it->is_regular_file(ec) && p.size() > 12 && p.compare(p.size() - 12, 12, ".expect.json") == 0)
        out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  auto side = expect::sidecarPath(path);
  if (!side) return std::nullopt;
  if (update && !fs::exists(*side, ec))
    return std::vector<std::string>{path};  // a repro to make a sidecar for
  return std::vector<std::string>{*side};
}

}  // namespace fc::driver::testcmd
