// Tests of the segmented-fusion dump importer (src/io/import_segments.cpp): the seed's dump
// gives the complete fusion plus an explicit three-segment segmentation in run order, and a
// dump whose groups do not partition the exprs is reported.
#include "io/import_segments.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ir/printer.h"
#include "ir/verifier.h"

namespace fc {
namespace {

std::string slurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first error or warning (notes say what was skipped or inferred).
const Diagnostic* firstProblem(const DiagnosticSink& s) {
  for (const Diagnostic& d : s.all())
    if (d.severity != Severity::Note) return &d;
  return nullptr;
}

std::string seedDump() {
  return slurpFile(std::string(FC_SOURCE_DIR) + "/fixtures/import/seed_segmented_fusion.txt");
}

TEST(ImportSegments, SeedDumpGivesExplicitSegmentation) {
  DiagnosticSink s;
  auto f = importSegments(SourceText("seg.txt", seedDump()), s);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(firstProblem(s), nullptr);  // the dump's log lines give notes only
  DiagnosticSink vs;
  EXPECT_TRUE(verifyFusion(*f, vs));
  ASSERT_TRUE(f->segmentation.has_value());
  const auto& segs = f->segmentation->segments;
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_EQ(segs[0].scheduler, "expr_eval");
  EXPECT_EQ(segs[1].scheduler, "none");  // the resharding group has no heuristic in the dump
  EXPECT_EQ(segs[2].scheduler, "pointwise");
  auto names = [&](const SegmentSpec& g) {
    std::string r;
    for (ExprId e : g.exprs) r += std::string(f->tensorName(f->exprs[e].outputs[0])) + " ";
    return r;
  };
  EXPECT_EQ(names(segs[0]), "T3 T4 ");
  EXPECT_EQ(names(segs[1]), "T5 ");
  EXPECT_EQ(names(segs[2]), "T7 T6 T8 T9 ");
  // The complete fusion is the seed: inputs and outputs from the re-written fusion's lists.
  ASSERT_EQ(f->inputs.size(), 3u);
  EXPECT_EQ(f->tensorName(f->inputs[2].id), "T2");
  EXPECT_EQ(f->tensors[*f->findTensor("T5")].dtype, DType::Half);
  EXPECT_EQ(printFusionMath(*f, PrintStyle::Y2024),
            slurpFile(std::string(FC_SOURCE_DIR) + "/tests/golden/seed.print.2024.txt"));
}

TEST(ImportSegments, GroupsMustPartitionTheExprs) {
  std::string d = seedDump();
  // Drop the pointwise group's add: T9's expr is then in no group.
  size_t at = d.find("T9_g[ iS23{i3}, iS24{i6} ] (DeviceMesh{0 1})\n   = T7_l", d.find("g{(pointwise)"));
  ASSERT_NE(at, std::string::npos);
  size_t end = d.find("(6)", at);
  d.erase(at, end + 3 - at);
  DiagnosticSink s;
  EXPECT_FALSE(importSegments(SourceText("seg.txt", d), s).has_value());
  const Diagnostic* e = firstProblem(s);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, DiagCode::ImportUnresolved);
  EXPECT_NE(e->message.find("T9"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("no group"), std::string::npos) << e->message;
}

TEST(ImportSegments, PlainPrintIsNotADump) {
  DiagnosticSink s;
  auto f = importSegments(
      SourceText("p.txt", slurpFile(std::string(FC_SOURCE_DIR) + "/tests/golden/seed.print.2024.txt")), s);
  EXPECT_FALSE(f.has_value());
  const Diagnostic* e = firstProblem(s);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, DiagCode::ImportSyntax);
  EXPECT_NE(e->message.find("group details"), std::string::npos) << e->message;
}

}  // namespace
}  // namespace fc
