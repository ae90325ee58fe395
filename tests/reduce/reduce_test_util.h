// Helpers of the minimizer's tests: the fixtures, loading a verified repro;
// running commands and reading files come from the viz tests' helpers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../viz/viz_test_util.h"
#include "diag/source.h"
#include "io/reader.h"
#include "ir/verifier.h"

namespace fc::reducetest {

using viztest::CommandResult;
using viztest::runCommand;
using viztest::slurp;
using viztest::sourcePath;

inline constexpr const char* kSeed = "fixtures/seed/matmul_allreduce_bias.json";
inline constexpr const char* kSeedPadded = "fixtures/reduce/seed_padded.json";
inline constexpr const char* kCancellation = "fixtures/reduce/cancellation_padded.json";

inline Fusion loadFusion(const std::string& path) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(path, sink, src);
  EXPECT_TRUE(f.has_value()) << path << ": " << (sink.all().empty() ? "" : sink.all()[0].message);
  if (!f) return {};
  EXPECT_TRUE(verifyFusion(*f, sink, path)) << path << ": " << sink.all()[0].message;
  f->rebuildUses();
  return std::move(*f);
}

}  // namespace fc::reducetest
