// A repro of the source tree read and verified for a test: `rel` is relative to the tree's root
// (FC_SOURCE_DIR); a read or verification failure fails the calling test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "diag/source.h"
#include "io/reader.h"
#include "ir/verifier.h"

namespace fc::test {

inline Fusion loadVerified(const std::string& rel) {
  DiagnosticSink sink;
  SourceText src;
  auto f = readFusionFile(std::string(FC_SOURCE_DIR) + "/" + rel, sink, src);
  EXPECT_TRUE(f.has_value()) << rel;
  if (!f) return Fusion{};
  EXPECT_TRUE(verifyFusion(*f, sink)) << rel;
  return std::move(*f);
}

}  // namespace fc::test
