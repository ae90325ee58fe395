// Profiles: a point given as a date, a commit, a version or an alias and a
// path (frontend, executor) given, recorded by the repro, or assumed and
// said; a point that does not resolve, or a path that did not exist there,
// is an error; every profile names itself.
#include "pipeline/profile.h"

#include <gtest/gtest.h>

#include <string>

#include "fixture_load.h"

namespace fc {
namespace {

Profile ok(const Fusion& f, const std::string& point, const std::string& fe = "",
           const std::string& ex = "") {
  auto r = resolveProfile(ProfileRequest{point, fe, ex}, f);
  if (auto* e = std::get_if<ProfileError>(&r))
    ADD_FAILURE() << point << " " << fe << " " << ex << ": " << e->message;
  return std::get_if<Profile>(&r) ? std::get<Profile>(std::move(r)) : Profile{};
}

std::string error(const Fusion& f, const std::string& point, const std::string& fe = "",
                  const std::string& ex = "") {
  auto r = resolveProfile(ProfileRequest{point, fe, ex}, f);
  auto* e = std::get_if<ProfileError>(&r);
  EXPECT_NE(e, nullptr) << point << " " << fe << " " << ex << " resolved";
  return e ? e->message : std::string();
}

const char* kSeed = "fixtures/seed/matmul_allreduce_bias.json";
const char* kSingle = "fixtures/nvfuser/matmul_sin_epilogue.json";

TEST(Profile, APointIsADateACommitAVersionOrAnAlias) {
  const Fusion f = test::loadVerified(kSingle);
  const Profile by_date = ok(f, "2024-06-30");
  EXPECT_EQ(by_date.point.date, "2024-06-30");
  // #2487's commit: the segment-input rewrite strips Reduction axes from it on.
  const Profile by_commit = ok(f, "4afbdf52f");
  EXPECT_EQ(by_commit.point.commit.substr(0, 9), "4afbdf52f");
  EXPECT_EQ(by_commit.input_rewrite, InputRewrite::StripReductions);
  EXPECT_EQ(ok(f, "bfa518ceb").input_rewrite, InputRewrite::KeepReductions);
  const Profile by_version = ok(f, "0.2.6");
  EXPECT_EQ(by_version.point.date, "2024-06-02");
  const Profile head = ok(f, "head");
  EXPECT_EQ(head.point.commit.substr(0, 9), "81c4b22fd");
  EXPECT_EQ(ok(f, "2024-06").input_rewrite, InputRewrite::KeepReductions);
  EXPECT_EQ(ok(f, "2024-07").input_rewrite, InputRewrite::StripReductions);
}

TEST(Profile, AnUnknownPointIsAnError) {
  const Fusion f = test::loadVerified(kSingle);
  EXPECT_FALSE(error(f, "1999-01-01").empty());
  EXPECT_FALSE(error(f, "deadbeefdead").empty());
  EXPECT_FALSE(error(f, "9.9.9").empty());
  EXPECT_FALSE(error(f, "yesterday").empty());
}

TEST(Profile, AFrontendOrExecutorThatDidNotExistIsAnError) {
  const Fusion f = test::loadVerified(kSingle);
  // nvfuser_direct runs fusions from #4513 (2025-05-28).
  EXPECT_NE(error(f, "2024-06-30", "direct").find("#4513"), std::string::npos);
  // The legacy Python module is gone from #5917 (2026-02-20).
  EXPECT_NE(error(f, "head", "python").find("#5917"), std::string::npos);
  ok(f, "2025-06-30", "direct");
  ok(f, "2026-02-19", "python");
  EXPECT_FALSE(error(f, "2024-06-30", "cpp", "bogus").empty());
}

TEST(Profile, TheReproSetsTheDefaults) {
  // The seed records its point (2024-06) and its path (C++ test,
  // MultiDeviceExecutor with a FusionExecutorCache per segment).
  const Fusion seed = test::loadVerified(kSeed);
  const Profile p = ok(seed, "");
  EXPECT_EQ(p.frontend, Frontend::Cpp);
  EXPECT_EQ(p.executor, Executor::MdeFec);
  EXPECT_EQ(p.order, ConcretizeOrder::PerSegment);
  EXPECT_EQ(p.input_rewrite, InputRewrite::KeepReductions);
  EXPECT_TRUE(p.assumptions.empty());
  EXPECT_NE(p.label().find("C++ MultiDeviceExecutor with FusionExecutorCache per segment"), std::string::npos)
      << p.label();
  // --frontend / --executor override the origin.
  const Profile py = ok(seed, "", "python", "mde");
  EXPECT_EQ(py.order, ConcretizeOrder::None);
  EXPECT_TRUE(py.kernel_without_scheduler);
}

TEST(Profile, WithoutAnOriginThePathIsAssumedAndSaid) {
  Fusion f = test::loadVerified(kSingle);
  f.origin.reset();
  f.nvfuser.reset();
  const Profile p = ok(f, "");
  EXPECT_EQ(p.point.commit.substr(0, 9), "81c4b22fd");  // head
  EXPECT_FALSE(p.assumptions.empty());
  EXPECT_EQ(p.executor, Executor::Fec);
  EXPECT_EQ(p.order, ConcretizeOrder::WholeFirst);
}

TEST(Profile, TheTransposeHazardsBelongBeforeTheirFixes) {
  const Fusion f = test::loadVerified(kSingle);
  EXPECT_TRUE(ok(f, "2024-01-31").transpose_tile_hazard);
  EXPECT_FALSE(ok(f, "2024-02-01").transpose_tile_hazard);
  EXPECT_TRUE(ok(f, "2024-06-24").transpose_outer_hazard);
  EXPECT_FALSE(ok(f, "2024-06-25").transpose_outer_hazard);
  EXPECT_FALSE(ok(f, "2024-06-30").transpose_outer_hazard);
}

}  // namespace
}  // namespace fc
