// Renderer tests: the text layout (header with line:col and pointer, source
// line with a caret, notes), the pointer fallback, JSON and SARIF structure
// and determinism.
#include "diag/render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"

namespace fc {
namespace {

const char* kText =
    "{\n"
    "  \"tensors\": [\n"
    "    {\"name\": \"T0\", \"dtype\": \"Half\"}\n"
    "  ]\n"
    "}\n";

std::vector<Diagnostic> sample() {
  Diagnostic d;
  d.code = DiagCode::DTypeMismatch;
  d.message = "T0 has dtype Half but expr 0 (cast) casts to Float";
  d.loc = Location{"repro.json", "/tensors/0/dtype", 3, 29};
  d.note("the cast's target dtype", Location{"repro.json", "/exprs/0/dtype", 9, 5});
  d.note("an unlocated remark");
  d.notes.push_back(Note{"fix[strip-reduction-axes]", "T5 enters segment 2 as [iS15{i3}, iS16{i6}]", {}});
  Diagnostic u;
  u.code = DiagCode::Cycle;
  u.message = "the exprs form a cycle";
  u.loc = Location{"repro.json", "/exprs/4/inputs/0", 0, 0};
  return {d, u};
}

std::string text(const std::vector<Diagnostic>& diags, const SourceText* src) {
  std::ostringstream os;
  renderText(diags, src, os);
  return os.str();
}

TEST(RenderText, HeaderCaretAndNotes) {
  SourceText src("repro.json", kText);
  std::string out = text(sample(), &src);
  const std::string want =
      "repro.json:3:29: error[FC0203]: T0 has dtype Half but expr 0 (cast) casts to Float "
      "[/tensors/0/dtype]\n"
      "        {\"name\": \"T0\", \"dtype\": \"Half\"}\n" +
      std::string(4 + 28, ' ') +
      "^\n"
      "  note: the cast's target dtype [9:5 /exprs/0/dtype]\n"
      "  note: an unlocated remark\n"
      "  fix[strip-reduction-axes]: T5 enters segment 2 as [iS15{i3}, iS16{i6}]\n"
      "repro.json:/exprs/4/inputs/0: error[FC0105]: the exprs form a cycle\n";
  EXPECT_EQ(out, want);
}

TEST(RenderText, CaretColumnMatchesSource) {
  SourceText src("repro.json", kText);
  std::string out = text({sample()[0]}, &src);
  std::istringstream is(out);
  std::string header, line, caret;
  std::getline(is, header);
  std::getline(is, line);
  std::getline(is, caret);
  size_t col = caret.find('^');
  ASSERT_NE(col, std::string::npos);
  EXPECT_EQ(line.substr(col, 6), "\"Half\"");
}

TEST(RenderText, NoSourceMeansNoCaret) {
  std::string out = text({sample()[0]}, nullptr);
  EXPECT_EQ(out.find('^'), std::string::npos);
  EXPECT_EQ(out.rfind("repro.json:3:29: error[FC0203]: ", 0), 0u);
}

TEST(RenderText, LongLineIsWindowed) {
  std::string line(100000, ' ');
  line[50000] = 'X';
  SourceText src("big.json", line);
  Diagnostic d;
  d.code = DiagCode::JsonSyntax;
  d.message = "unexpected X";
  d.loc = Location{"big.json", "", 1, 50001};
  std::string out = text({d}, &src);
  EXPECT_LT(out.size(), 600u);
  std::istringstream is(out);
  std::string header, shown, caret;
  std::getline(is, header);
  std::getline(is, shown);
  std::getline(is, caret);
  EXPECT_EQ(header, "big.json:1:50001: error[FC0002]: unexpected X");
  size_t col = caret.find('^');
  ASSERT_NE(col, std::string::npos);
  EXPECT_EQ(shown[col], 'X');
  EXPECT_EQ(shown.substr(4, 3), "...");
}

TEST(RenderText, NoFileNoLine) {
  Diagnostic d;
  d.code = DiagCode::Usage;
  d.message = "no input";
  EXPECT_EQ(text({d}, nullptr), "error[FC0901]: no input\n");
}

TEST(RenderText, EmptyFileCaretAtLineOne) {
  SourceText src("empty.json", "");
  Diagnostic d;
  d.code = DiagCode::JsonTruncated;
  d.message = "the file is empty";
  d.loc = Location{"empty.json", "", 1, 1};
  EXPECT_EQ(text({d}, &src), "empty.json:1:1: error[FC0003]: the file is empty\n    \n    ^\n");
}

// A not-decided finding is neither an error nor clean: a warning annotation
// on GitHub (as SARIF's level), and the warning colour on a terminal.
TEST(RenderGithub, NotDecidedIsAWarningAsInSarif) {
  Diagnostic d;
  d.code = DiagCode::NotDecided;
  d.severity = Severity::NotDecided;
  d.message = "expr 3 is the opaque op sdpfa_fwd";
  d.loc = Location{"repro.py", "", 12, 5};
  std::string g = renderGithub({d});
  EXPECT_EQ(g.rfind("::warning file=repro.py,line=12,col=5", 0), 0u) << g;
  setColorMode(ColorMode::Always);
  std::string t = text({d}, nullptr);
  setColorMode(ColorMode::Auto);
  EXPECT_NE(t.find("\033[1;35mnot-decided[FC1001]"), std::string::npos) << t;
}

TEST(RenderJson, Structure) {
  auto j = nlohmann::json::parse(renderJson(sample()));
  ASSERT_TRUE(j.contains("diagnostics"));
  ASSERT_EQ(j["diagnostics"].size(), 2u);
  const auto& d = j["diagnostics"][0];
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["code"], "FC0203");
  EXPECT_EQ(d["slug"], "dtype-mismatch");
  EXPECT_EQ(d["location"]["file"], "repro.json");
  EXPECT_EQ(d["location"]["pointer"], "/tensors/0/dtype");
  EXPECT_EQ(d["location"]["line"], 3);
  EXPECT_EQ(d["location"]["col"], 29);
  ASSERT_EQ(d["notes"].size(), 3u);
  EXPECT_EQ(d["notes"][0]["kind"], "note");
  EXPECT_EQ(d["notes"][0]["location"]["pointer"], "/exprs/0/dtype");
  EXPECT_EQ(d["notes"][2]["kind"], "fix[strip-reduction-axes]");
  const auto& u = j["diagnostics"][1];
  EXPECT_TRUE(u["location"]["line"].is_null());
  EXPECT_TRUE(u["location"]["col"].is_null());
  EXPECT_TRUE(u["notes"].is_array());
}

TEST(RenderJson, InvalidUtf8IsReplacedNotThrown) {
  Diagnostic d;
  d.code = DiagCode::UnknownKey;
  d.message = std::string("unknown key \"\xff\xfe\"");
  std::string out;
  EXPECT_NO_THROW(out = renderJson({d}));
  EXPECT_NO_THROW((void)nlohmann::json::parse(out));
}

TEST(RenderJson, EmptyAndDeterministic) {
  EXPECT_EQ(nlohmann::json::parse(renderJson({})), nlohmann::json::parse("{\"diagnostics\": []}"));
  EXPECT_EQ(renderJson(sample()), renderJson(sample()));
}

TEST(RenderSarif, Structure) {
  auto j = nlohmann::json::parse(renderSarif(sample(), "0.1.0"));
  EXPECT_EQ(j["version"], "2.1.0");
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& run = j["runs"][0];
  const auto& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "fusecheck");
  EXPECT_EQ(driver["version"], "0.1.0");
  ASSERT_EQ(driver["rules"].size(), allDiagCodes().size());
  for (size_t i = 0; i < allDiagCodes().size(); ++i) {
    EXPECT_EQ(driver["rules"][i]["id"], std::string(allDiagCodes()[i].id));
    EXPECT_EQ(driver["rules"][i]["name"], std::string(allDiagCodes()[i].slug));
  }
  ASSERT_EQ(run["results"].size(), 2u);
  const auto& r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "FC0203");
  EXPECT_EQ(driver["rules"][r["ruleIndex"].get<size_t>()]["id"], "FC0203");
  EXPECT_EQ(r["level"], "error");
  const auto& loc = r["locations"][0];
  EXPECT_EQ(loc["physicalLocation"]["artifactLocation"]["uri"], "repro.json");
  EXPECT_EQ(loc["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_EQ(loc["physicalLocation"]["region"]["startColumn"], 29);
  EXPECT_EQ(loc["logicalLocations"][0]["fullyQualifiedName"], "/tensors/0/dtype");
  ASSERT_EQ(r["relatedLocations"].size(), 1u);  // only the located note
  EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 9);
  EXPECT_EQ(r["relatedLocations"][0]["logicalLocations"][0]["fullyQualifiedName"], "/exprs/0/dtype");
  // Unlocated notes and fixes are kept, in the message text.
  std::string msg = r["message"]["text"];
  EXPECT_NE(msg.find("note: an unlocated remark"), std::string::npos);
  EXPECT_NE(msg.find("fix[strip-reduction-axes]: "), std::string::npos);
  // Unknown line: no region (SARIF requires startLine >= 1).
  const auto& u = run["results"][1]["locations"][0];
  EXPECT_FALSE(u["physicalLocation"].contains("region"));
  EXPECT_EQ(u["logicalLocations"][0]["fullyQualifiedName"], "/exprs/4/inputs/0");
}

TEST(RenderSarif, UriIsPercentEncodedAndOutputDeterministic) {
  Diagnostic d;
  d.code = DiagCode::JsonSyntax;
  d.message = "x";
  d.loc = Location{"my dir/a#b.json", "", 1, 1};
  auto j = nlohmann::json::parse(renderSarif({d}, "1"));
  EXPECT_EQ(j["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "my%20dir/a%23b.json");
  EXPECT_EQ(renderSarif(sample(), "1"), renderSarif(sample(), "1"));
}

}  // namespace
}  // namespace fc
