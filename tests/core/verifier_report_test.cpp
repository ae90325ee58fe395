// How a verifier check writes the state it shares with other chunks
// (ir/verifier_report.h): claim() and markOnce() give a sequential check
// and a speculative one the same answers; on several threads, exactly one
// claimant of a slot wins.
#include "ir/verifier_report.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "io/place_pointer.h"
#include "support/parallel.h"

namespace fc {
namespace {

using verify::claim;
using verify::markOnce;
using verify::SinkReporter;
using verify::SpeculativeReporter;

TEST(VerifierReport, ClaimAndMarkOnceAnswerAlikeInBothModes) {
  DiagnosticSink sink;
  SinkReporter sequential(sink, "");
  SpeculativeReporter speculative;
  for (const verify::Reporter* r : {static_cast<const verify::Reporter*>(&sequential),
                                    static_cast<const verify::Reporter*>(&speculative)}) {
    uint32_t slot = kNone;
    EXPECT_EQ(claim(slot, 7u, r->speculative()), kNone);
    EXPECT_EQ(slot, 7u);
    EXPECT_EQ(claim(slot, 9u, r->speculative()), 7u);
    EXPECT_EQ(slot, 7u);
    char flag = 0;
    EXPECT_TRUE(markOnce(flag, r->speculative()));
    EXPECT_FALSE(markOnce(flag, r->speculative()));
  }
}

// A uint32_t table of first claimants names the first; a uint8_t table (a
// quarter of the memory) says only that there was one, whatever the ids.
TEST(VerifierReport, FirstTablesOfBothSlotTypes) {
  using verify::claimFirst;
  using verify::FirstTable;
  using verify::kFreeSlot;
  FirstTable<uint32_t> wide(1, kFreeSlot<uint32_t>);
  EXPECT_EQ(claimFirst(wide[0], 300u, false), kNone);
  EXPECT_EQ(claimFirst(wide[0], 5u, false), 300u);
  FirstTable<uint8_t> narrow(2, kFreeSlot<uint8_t>);
  for (bool speculative : {false, true}) {
    const size_t i = speculative ? 1 : 0;
    EXPECT_EQ(claimFirst(narrow[i], 255u, speculative), kNone);
    EXPECT_NE(claimFirst(narrow[i], 255u, speculative), kNone);
  }
}

TEST(VerifierReport, OneSpeculativeClaimantWinsEachSlot) {
  constexpr size_t kThreads = 4, kSlots = 4096;
  std::vector<uint32_t> slots(kSlots, kNone);
  std::atomic<size_t> wins{0};
  parallelFor(kThreads, [&](size_t k) {
    SpeculativeReporter r;
    size_t mine = 0;
    for (size_t i = 0; i < kSlots; ++i)
      if (claim(slots[i], static_cast<uint32_t>(k), r.speculative()) == kNone) ++mine;
    wins += mine;
  });
  EXPECT_EQ(wins.load(), kSlots);
  for (uint32_t s : slots) EXPECT_LT(s, kThreads);
}

TEST(VerifierReport, ReportersCountFindings) {
  DiagnosticSink sink;
  SinkReporter sequential(sink, "f.json");
  sequential.error(DiagCode::BadMesh, "m", Place::mesh(0))
      .note("n", sequential.at(Place::mesh(0).key(PlaceField::Shape)));
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].loc.file, "f.json");
  EXPECT_EQ(jsonPointer(sink.all()[0].notes[0].loc.place), "/meshes/0/shape");
  EXPECT_EQ(sequential.found(), 1u);
  SpeculativeReporter speculative;
  speculative.error(DiagCode::BadMesh, "m", Place::mesh(0)).note("n");
  speculative.flag();
  EXPECT_EQ(speculative.found(), 2u);
  EXPECT_TRUE(speculative.speculative());
  EXPECT_FALSE(sequential.speculative());
}

}  // namespace
}  // namespace fc
