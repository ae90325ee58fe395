// The command line as a user meets it: typos named with a suggestion,
// global options after the subcommand, choices written as words in help,
// unknown values refused with the valid ones, fuzz's --nvfuser (and the
// deprecated --era), explain of tensors, axes and exprs (after an unused expr too), explain --error
// without a match, colour only on a terminal.
#include <gtest/gtest.h>

#include "cli_run.h"

namespace fc {
namespace {

using testing::runCli;
using testing::runCliOnTerminal;
using testing::sourcePath;

const std::string kSeed = sourcePath("fixtures/seed/matmul_allreduce_bias.json");

TEST(CliUsage, MisspeltSubcommandIsNamedWithASuggestion) {
  auto r = runCli({"chek", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'chek' (did you mean check?)"), std::string::npos) << r.err;
  r = runCli({"--threads", "2", "concretise", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'concretise' (did you mean concretize?)"), std::string::npos)
      << r.err;
  r = runCli({});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("a subcommand is required"), std::string::npos) << r.err;
}

TEST(CliUsage, MisspeltOptionIsNamedWithASuggestion) {
  auto r = runCli({"check", "--formt", "json", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown option --formt for `fusecheck check` (did you mean --format or --from?)"),
            std::string::npos)
      << r.err;
  r = runCli({"check", "--thread", "2", kSeed});
  EXPECT_NE(r.err.find("(did you mean --threads?)"), std::string::npos) << r.err;
}

TEST(CliUsage, GlobalOptionsMayFollowTheSubcommand) {
  auto before = runCli({"--threads", "4", "check", kSeed});
  auto after = runCli({"check", "--threads", "4", kSeed});
  EXPECT_EQ(after.rc, 1) << after.err;
  EXPECT_EQ(after.out, before.out);
  EXPECT_EQ(runCli({"check", kSeed, "--color", "never", "--threads", "1"}).rc, 1);
}

TEST(CliUsage, HelpWritesChoicesAsWords) {
  auto r = runCli({"check", "--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.find("ENUM"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("->"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--format FORMAT:{text,json,sarif,github}=text"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--frontend FRONTEND:{python,direct,cpp}"), std::string::npos) << r.out;
  EXPECT_NE(runCli({"print", "--help"}).out.find("--style STYLE:{2024,head}=2024"), std::string::npos);
}

TEST(CliUsage, UnknownValuesAreRefusedWithTheValidOnes) {
  auto r = runCli({"check", "--policy", "foo", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--policy: 'foo' is not one of: magnitude-aware"), std::string::npos) << r.err;
  r = runCli({"check", "--print-after=bogus", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(
      r.err.find("'bogus' is not one of: sharding, bind, concretize, apply, segment, segment-inputs or all"),
      std::string::npos)
      << r.err;
  r = runCli({"check", "--format", "jsn", kSeed});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("(did you mean json?)"), std::string::npos) << r.err;
  EXPECT_EQ(runCli({"check", "--policy", "magnitude-aware", "--print-after", "bind", kSeed}).rc, 1);
}

TEST(CliUsage, FuzzTakesNvfuserAndSaysEraIsDeprecated) {
  auto r = runCli({"fuzz", "--count", "2", "--nvfuser", "head"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("deprecated"), std::string::npos);
  auto old = runCli({"fuzz", "--count", "2", "--era", "head"});
  EXPECT_EQ(old.rc, 0) << old.err;
  EXPECT_NE(old.err.find("--era is deprecated; use --nvfuser"), std::string::npos) << old.err;
  // The same fusions and tallies (the first line carries the time taken).
  EXPECT_EQ(old.out.substr(old.out.find('\n')), r.out.substr(r.out.find('\n')));
  EXPECT_EQ(runCli({"fuzz", "--help"}).out.find("--era ERA"), std::string::npos) << "hidden from help";
}

TEST(CliUsage, ExplainTakesTensorsAxesAndExprs) {
  auto axis = runCli({"explain", kSeed, "rS14"});
  EXPECT_EQ(axis.rc, 1) << axis.err;
  EXPECT_NE(axis.out.find("rS14{i0}: Reduction axis of T5"), std::string::npos) << axis.out;
  EXPECT_NE(axis.out.find("kept when T5 enters segment 2"), std::string::npos) << axis.out;
  EXPECT_NE(axis.out.find("error[FC0301]"), std::string::npos) << axis.out;
  auto tensor = runCli({"explain", kSeed, "T5"});
  EXPECT_EQ(tensor.rc, 1);
  EXPECT_NE(tensor.out.find("T5: Half tensor [rS14{i0}, iS15{i3}, iS16{i6}]"), std::string::npos)
      << tensor.out;
  auto expr = runCli({"explain", kSeed, "e3", "--format", "json"});
  EXPECT_EQ(expr.rc, 0) << expr.err;
  EXPECT_NE(expr.out.find("\"op\": \"broadcast\""), std::string::npos) << expr.out;
  auto missing = runCli({"explain", kSeed, "T55"});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("(did you mean T5?)"), std::string::npos) << missing.err;
  EXPECT_EQ(runCli({"explain", kSeed, "i0"}).rc, 1);
}

// explain speaks in the repro's ids; the segments name the exprs of the fusion the pipeline ran,
// which leaves out expr 3, the cast no output uses (fixtures/analysis/seed_with_unused_cast.json).
TEST(CliUsage, ExplainPlacesExprsAfterAnUnusedOneInTheirSegments) {
  const std::string f = sourcePath("fixtures/analysis/seed_with_unused_cast.json");
  auto dead = runCli({"explain", f, "e3"});
  EXPECT_EQ(dead.rc, 0) << dead.err;
  EXPECT_NE(dead.out.find("e3: cast\n"), std::string::npos) << dead.out;  // in no segment
  EXPECT_NE(dead.out.find("note[FC0317]: expr 3 (cast) reaches no fusion output"), std::string::npos)
      << dead.out;
  auto bcast = runCli({"explain", f, "e4"});
  EXPECT_NE(bcast.out.find("e4: broadcast in segment 2"), std::string::npos) << bcast.out;
  auto sum = runCli({"explain", f, "T5"});
  EXPECT_NE(sum.out.find("produced by e2 (sum) in segment 1"), std::string::npos) << sum.out;
  auto t10 = runCli({"explain", f, "T10", "--format", "json"});
  EXPECT_NE(t10.out.find("\"segment\": null"), std::string::npos) << t10.out;
}

TEST(CliUsage, MisspeltSymbolsAreNamedWithASuggestion) {
  auto r = runCli({"check", kSeed, "--bind", "i9=4"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--bind names 'i9', which is not a scalar of this fusion (did you mean"),
            std::string::npos)
      << r.err;
}

TEST(CliUsage, ExplainErrorWithoutAMatchIsNoFinding) {
  auto r = runCli({"explain", "--error", "random text"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("no fusecheck diagnostic explains this"), std::string::npos) << r.out;
  auto hit = runCli({"explain", "--error", "Could not evaluate dynamic extent: i0"});
  EXPECT_EQ(hit.rc, 0);
  EXPECT_NE(hit.out.find("FC0301"), std::string::npos);
}

TEST(CliUsage, ColourOnlyOnATerminal) {
  const std::string red = "\033[1;31merror[FC0301]:";
  auto piped = runCli({"check", kSeed});
  EXPECT_EQ(piped.out.find('\033'), std::string::npos);
  EXPECT_EQ(piped.err.find('\033'), std::string::npos);
  auto term = runCliOnTerminal({"check", kSeed}, {"NO_COLOR="});
  EXPECT_NE(term.out.find(red), std::string::npos) << term.out;
  EXPECT_NE(term.out.find("\033[1;32m^"), std::string::npos) << "caret in green";
  EXPECT_NE(term.out.find("  \033[2mnote:"), std::string::npos) << "notes dim";
  auto no_color = runCliOnTerminal({"check", kSeed}, {"NO_COLOR=1"});
  EXPECT_EQ(no_color.out.find('\033'), std::string::npos);
  auto never = runCliOnTerminal({"check", "--color", "never", kSeed}, {"NO_COLOR="});
  EXPECT_EQ(never.out.find('\033'), std::string::npos);
  auto always = runCli({"--color", "always", "check", kSeed});
  EXPECT_NE(always.out.find(red), std::string::npos);
}

}  // namespace
}  // namespace fc
