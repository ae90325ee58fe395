// A print dated by its style only: without a point asked for, the verdict is taken over every
// change point of the style's range, on the path given or the one assumed at each point. One
// verdict over the range is that verdict; a range that disagrees is not decided, each stretch
// named.
#include "pipeline/printed_range.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/import_ir.h"
#include "ir/verifier.h"
#include "pipeline/point_walk.h"

namespace fc {
namespace {

Fusion importFile(const std::string& rel) {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  DiagnosticSink sink;
  auto f = importIr(SourceText(rel, ss.str()), sink);
  EXPECT_TRUE(f.has_value()) << rel;
  if (!f) return Fusion{};
  EXPECT_TRUE(verifyFusion(*f, sink)) << rel;
  return std::move(*f);
}

uint32_t positionOf(std::string_view commit) {
  auto p = nv::resolvePoint(commit);
  EXPECT_TRUE(std::holds_alternative<nv::Point>(p)) << commit;
  return std::holds_alternative<nv::Point>(p) ? std::get<nv::Point>(p).pos : 0;
}

PipelineOptions defaults(const Fusion& f, const std::string& point = "", const std::string& fe = "",
                         const std::string& ex = "") {
  auto r = resolveProfile(ProfileRequest{point, fe, ex}, f);
  EXPECT_TRUE(std::holds_alternative<Profile>(r));
  PipelineOptions o;
  if (auto* p = std::get_if<Profile>(&r)) o.profile = std::move(*p);
  o.file = "repro.txt";
  return o;
}

// The seed's print (nvFuser #2481): padded brackets, no dtype in the names.
const char* kSeedPrint = "fixtures/import/seed_issue_2481.ir.txt";

TEST(PrintedRange, TheStyleBoundsThePointsAndTheLastIsReplayed) {
  const Fusion f = importFile(kSeedPrint);
  ASSERT_TRUE(f.origin.has_value());
  EXPECT_EQ(f.origin->printed_from, "");
  EXPECT_EQ(f.origin->printed_before, "8147bfdd52a84e448c3fc893545b17c2b7bec40e");  // #2889
  const PipelineOptions o = defaults(f);
  ASSERT_TRUE(o.profile.printed_range.has_value());
  EXPECT_EQ(o.profile.printed_range->first, 0u);
  EXPECT_EQ(o.profile.printed_range->last + 1, positionOf("8147bfdd5"));
  EXPECT_EQ(o.profile.point.pos, o.profile.printed_range->last);
  EXPECT_NE(o.profile.printed_range->why.find("printed before 2024-09-04"), std::string::npos);
  // A point asked for, or recorded by the repro, is replayed alone.
  EXPECT_FALSE(defaults(f, "2024-06-30").profile.printed_range.has_value());
  Fusion recorded = f;
  recorded.nvfuser = RecordedPoint{"2024-06-30", "", ""};
  EXPECT_FALSE(defaults(recorded).profile.printed_range.has_value());
}

TEST(PrintedRange, ARangeThatDisagreesIsNotDecidedAndNamesEachStretch) {
  const Fusion f = importFile(kSeedPrint);
  // The path of the C++ test that printed it: FC0301 from #2209 until #2487 fixed it.
  const PipelineOptions o = defaults(f, "", "cpp", "mde-fec");
  PipelineResult r = runPipeline(f, o);
  EXPECT_EQ(r.verdict(), Verdict::NotDecided);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, DiagCode::NotDecided);
  EXPECT_NE(d.message.find("printed before 2024-09-04"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("on C++ MultiDeviceExecutor with FusionExecutorCache per segment"),
            std::string::npos)
      << d.message;
  bool fails = false, fixed = false;
  for (const Note& n : d.notes) {
    fails |= n.message.find("2024-05-14 .. 2024-07-01: fails (FC0301") != std::string::npos;
    fixed |= n.message.find(": clean [from #2487 (4afbdf52f, 2024-07-01)]") != std::string::npos;
  }
  EXPECT_TRUE(fails && fixed) << d.notes.size() << " notes";
  // The stretches tile the range, in order.
  ASSERT_FALSE(r.printed_intervals.empty());
  EXPECT_EQ(r.printed_intervals.front().from, o.profile.printed_range->first);
  EXPECT_EQ(r.printed_intervals.back().to, o.profile.printed_range->last);
  for (size_t i = 1; i < r.printed_intervals.size(); ++i)
    EXPECT_EQ(r.printed_intervals[i].from, r.printed_intervals[i - 1].to + 1);
  // At a point of the range alone, the verdict is that point's.
  EXPECT_EQ(runPipeline(f, defaults(f, "2024-06-30", "cpp", "mde-fec")).verdict(), Verdict::Findings);
  EXPECT_EQ(runPipeline(f, defaults(f, "2024-07-01", "cpp", "mde-fec")).verdict(), Verdict::Clean);
}

TEST(PrintedRange, ARangeThatAgreesGivesItsVerdictAndSaysSo) {
  const Fusion f = importFile("fixtures/import/ir_late2024_dtype_padded.ir.txt");
  const PipelineOptions o = defaults(f);
  ASSERT_TRUE(o.profile.printed_range.has_value());
  PipelineResult r = runPipeline(f, o);
  EXPECT_EQ(r.verdict(), Verdict::Clean);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("every change point from 2024-09-04 to 2024-11-28 gives this verdict"),
            std::string::npos)
      << r.notes[0];
  EXPECT_EQ(r.profile.point.pos + 1, positionOf("c154e9091"));  // #3444 stopped the padded print
}

TEST(PrintedRange, AnOriginRangeThatNamesNoPointsIsAnError) {
  Fusion f = importFile(kSeedPrint);
  f.origin->printed_from = "c154e90919c40bfe2202b432c2a38e106d1a5444";
  auto r = resolveProfile(ProfileRequest{}, f);
  ASSERT_TRUE(std::holds_alternative<ProfileError>(r));
  EXPECT_NE(std::get<ProfileError>(r).message.find("printed_before (8147bfdd5"), std::string::npos)
      << std::get<ProfileError>(r).message;
  f.origin->printed_from = "0123456789abc";
  r = resolveProfile(ProfileRequest{}, f);
  ASSERT_TRUE(std::holds_alternative<ProfileError>(r));
  EXPECT_NE(std::get<ProfileError>(r).message.find("origin.printed_from"), std::string::npos)
      << std::get<ProfileError>(r).message;
}

}  // namespace
}  // namespace fc
