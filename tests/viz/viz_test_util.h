// Helpers shared by the viz tests: load a verified repro, run the
// pipeline, apply the automatic fix in memory (as `fusecheck fix` writes
// and re-reads it), generate a long elementwise chain, run a command.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"

namespace fc::viztest {

inline std::string sourcePath(const std::string& rel) { return std::string(FC_SOURCE_DIR) + "/" + rel; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Repro {
  SourceText source;
  Fusion fusion;
  PipelineResult result;
};

// Reads `text` as a repro named `name`, verifies it and runs the pipeline
// (era: the repro's, else 2024-06). Fails the test when it does not load.
inline std::unique_ptr<Repro> loadText(const std::string& name, const std::string& text, bool trace = false) {
  auto r = std::make_unique<Repro>();
  r->source = SourceText(name, text);
  DiagnosticSink sink;
  auto f = readFusion(r->source, sink);
  EXPECT_TRUE(f.has_value()) << name << " does not read";
  if (!f) return nullptr;
  r->fusion = std::move(*f);
  EXPECT_TRUE(verifyFusion(r->fusion, sink, name)) << name << " does not verify";
  r->fusion.rebuildUses();
  PipelineOptions o;
  o.file = name;
  o.trace = trace;
  o.profile = defaultProfile(r->fusion);
  r->result = runPipeline(r->fusion, o);
  return r;
}

inline std::unique_ptr<Repro> loadFixture(const std::string& rel, bool trace = false) {
  return loadText(rel, slurp(sourcePath(rel)), trace);
}

// The repro `fusecheck fix` writes for `r`, loaded back.
inline std::unique_ptr<Repro> fixed(const Repro& r) {
  FixResult fr = applyFixes(r.fusion, r.result, FixKind::Auto, r.source.path());
  EXPECT_TRUE(fr.changed);
  if (!fr.changed) return nullptr;
  return loadText(r.source.path() + ".fixed", writeFusion(fr.fixed));
}

inline const char* kSeed = "fixtures/seed/matmul_allreduce_bias.json";

// A chain of `n` elementwise exprs T(k+1) = neg/abs/relu(Tk) over a 2-D
// Float input: the synthetic large repro of the acceptance criteria.
inline std::string elementwiseChain(size_t n) {
  static const char* ops[] = {"neg", "abs", "relu"};
  std::string s = "{\"format\": \"fusecheck.fusion/1\", \"name\": \"chain" + std::to_string(n) +
                  "\",\n\"scalars\": [{\"name\": \"i0\"}, {\"name\": \"i1\"}],\n\"tensors\": [\n";
  for (size_t t = 0; t <= n; ++t) {
    s += "{\"name\": \"T" + std::to_string(t) + "\", \"dtype\": \"Float\"" +
         (t == 0 || t == n ? ", \"memory\": \"global\"" : "") +
         ", \"logical\": [{\"id\": " + std::to_string(2 * t) +
         ", \"extent\": \"i0\"}, {\"id\": " + std::to_string(2 * t + 1) + ", \"extent\": \"i1\"}]}" +
         (t == n ? "\n" : ",\n");
  }
  s += "],\n\"exprs\": [\n";
  for (size_t e = 0; e < n; ++e)
    s += "{\"op\": \"" + std::string(ops[e % 3]) + "\", \"inputs\": [\"T" + std::to_string(e) +
         "\"], \"outputs\": [\"T" + std::to_string(e + 1) + "\"]}" + (e + 1 == n ? "\n" : ",\n");
  s += "],\n\"inputs\": [\"T0\"], \"outputs\": [\"T" + std::to_string(n) + "\"],\n";
  s += "\"concrete_inputs\": [{\"input\": \"T0\", \"shape\": [4, 8]}]}\n";
  return s;
}

struct CommandResult {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

// Runs `cmd` through the shell (stderr folded into the captured text).
inline CommandResult runCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// True when DOT / HTML text draws something red (a red font or colour),
// as opposed to words such as "reduction" or "repaired".
inline bool drawsRed(const std::string& text) {
  return text.find("=red") != std::string::npos || text.find("\"red\"") != std::string::npos;
}

inline bool haveProgram(const std::string& name) {
  return runCommand("command -v " + name + " >/dev/null").rc == 0;
}

}  // namespace fc::viztest
