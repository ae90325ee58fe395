// `fusecheck test` (test_cmd.h): finding the sidecars, checking them on
// several threads, and the text, JSON and JUnit reports.
#include "driver/test_cmd.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <thread>

#include "diag/render.h"
#include "driver/test_internal.h"
#include "io/place_pointer.h"
#include "support/atomic_file.h"
#include "support/child_process.h"
#include "support/parallel.h"
#include "support/progress.h"

namespace fc::driver {
namespace {

using testcmd::SidecarResult;
using Status = SidecarResult::Status;
using ojson = expect::ojson;

std::string indent(const std::string& s) {
  std::string out = "  ";
  for (char c : s) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

void printResult(const SidecarResult& r, bool color, std::ostream& out) {
  const char* green = color ? "\033[1;32m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* yellow = color ? "\033[1;33m" : "";
  const char* reset = color ? "\033[0m" : "";
  switch (r.status) {
    case Status::Pass:
      out << green << "ok  " << reset << " " << r.path << " (" << r.ran << " invocation(s))\n";
      break;
    case Status::Fail:
      out << red << "FAIL" << reset << " " << r.path << "\n";
      for (const std::string& p : r.problems) out << indent(p) << "\n";
      for (const std::string& s : r.skips) out << indent(s) << "\n";
      break;
    case Status::Skip:
      out << yellow << "SKIP" << reset << " " << r.path << " (" << r.ran << " invocation(s) passed, "
          << r.skips.size() << " not checked)\n";
      for (const std::string& s : r.skips) out << indent(s) << "\n";
      break;
  }
}

const char* statusName(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::Skip: return "skip";
  }
  return "fail";
}

int usage(const std::string& msg, std::ostream& err) {
  DiagnosticSink sink;
  sink.error(DiagCode::Usage, msg);
  renderText(sink.all(), nullptr, err);
  return kExitBadInput;
}

}  // namespace

int test(const TestArgs& a, std::ostream& out, std::ostream& err) {
  if (a.paths.empty()) return usage("test needs a folder of repros, or sidecars / repros", err);
  std::string cli_path = a.cli.empty() ? selfExecutable() : a.cli;
  if (cli_path.empty() || access(cli_path.c_str(), X_OK) != 0)
    return usage("--cli " + cli_path + " is not an executable", err);
  std::vector<std::string> sidecars;
  for (const std::string& p : a.paths) {
    auto found = testcmd::sidecarsOf(p, a.update);
    if (!found)
      return usage("'" + p +
                       "' is neither a folder nor a sidecar X.expect.json or a repro X.json / X.py / X.txt / "
                       "X.cpp / X.cc / X.md",
                   err);
    if (found->empty()) err << "fusecheck test: no *.expect.json under " << p << "\n";
    sidecars.insert(sidecars.end(), found->begin(), found->end());
  }
  testcmd::Cli cli(cli_path);
  auto start = std::chrono::steady_clock::now();

  if (a.update) {
    int failed = 0;
    for (const std::string& s : sidecars) {
      auto [lines, problems] = testcmd::updateSidecar(cli, s, a.new_args);
      for (const std::string& l : lines) out << l << "\n";
      if (!problems.empty()) {
        ++failed;
        out << "FAIL " << s << "\n";
        for (const std::string& p : problems) out << indent(p) << "\n";
      }
    }
    return failed ? kExitFindings : kExitClean;
  }

  // Check the sidecars on several threads; print each result in order as soon as those before it are done.
  std::vector<SidecarResult> results(sidecars.size());
  std::vector<char> done(sidecars.size(), 0);
  std::mutex m;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  size_t threads = std::max<size_t>(1, std::min<size_t>(a.jobs ? a.jobs : defaultThreads(), sidecars.size()));
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i = next++; i < sidecars.size(); i = next++) {
        SidecarResult r = testcmd::checkSidecar(cli, sidecars[i]);
        if (a.strict && r.status == Status::Skip) {
          for (const std::string& s : r.skips) r.problems.push_back(s + " (--strict)");
          r.skips.clear();
          r.status = Status::Fail;
          for (Diagnostic& d : r.diagnostics)
            if (d.code == DiagCode::ExpectationSkipped) d.severity = Severity::Error;
        }
        std::lock_guard<std::mutex> lock(m);
        results[i] = std::move(r);
        done[i] = 1;
        cv.notify_all();
      }
    });
  const bool text = a.format == OutputFormat::Text;
  const bool color = text && colorFor(out);
  ProgressLine progress("test", sidecars.size());
  size_t printed = 0, finished = 0;
  {
    std::unique_lock<std::mutex> lock(m);
    while (printed < sidecars.size()) {
      cv.wait(lock, [&] { return done[printed]; });
      while (printed < sidecars.size() && done[printed]) {
        if (text) {
          progress.finish();
          printResult(results[printed], color, out);
          out.flush();
        }
        ++printed;
      }
      finished = static_cast<size_t>(std::count(done.begin(), done.end(), 1));
      progress.update(finished, sidecars[std::min(printed, sidecars.size() - 1)]);
    }
  }
  for (std::thread& t : pool) t.join();
  progress.finish();
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  size_t passed = 0, failed = 0, skipped = 0;
  for (const SidecarResult& r : results) {
    passed += r.status == Status::Pass;
    failed += r.status == Status::Fail;
    skipped += r.status == Status::Skip;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f s", total);
  if (text) {
    out << "test: " << results.size() << " sidecar" << (results.size() == 1 ? "" : "s") << ", " << passed
        << " passed, " << failed << " failed, " << skipped << " skipped (" << secs << ")\n";
  } else {
    std::vector<Diagnostic> diags;
    for (const SidecarResult& r : results)
      diags.insert(diags.end(), r.diagnostics.begin(), r.diagnostics.end());
    ojson j;
    j["test"] = {{"sidecars", results.size()},
                 {"passed", passed},
                 {"failed", failed},
                 {"skipped", skipped},
                 {"seconds", total}};
    ojson list = ojson::array();
    for (const SidecarResult& r : results)
      list.push_back({{"sidecar", r.path},
                      {"status", statusName(r.status)},
                      {"invocations", r.ran},
                      {"problems", r.problems},
                      {"skips", r.skips},
                      {"seconds", r.seconds}});
    j["results"] = std::move(list);
    j["diagnostics"] = ojson::parse(spelledJson(diags))["diagnostics"];
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  if (!a.junit.empty()) {
    std::string why = writeFileAtomic(a.junit, testcmd::junitXml(results, total));
    if (!why.empty()) {
      DiagnosticSink sink;
      sink.error(DiagCode::WriteFailed, "cannot write --junit " + a.junit + ": " + why);
      renderText(sink.all(), nullptr, err);
      return kExitEnvironment;
    }
  }
  return failed ? kExitFindings : kExitClean;
}

}  // namespace fc::driver
