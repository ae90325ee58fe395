// The parallel splitter of top-level arrays (io/json_split.h): on
// valid JSON it must find exactly the elements simdjson finds, wherever the
// block edges fall; on texts of another shape it must decline, so that the
// reader reads them the ordinary way.
#include "io/json_split.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io_test_util.h"

namespace fc {
namespace {

using jsonsplit::Skeleton;
using jsonsplit::Split;
using jsonsplit::splitTopLevelArrays;

constexpr std::array<std::string_view, 3> kKeys = {"tensors", "exprs", "concrete_inputs"};

// What simdjson makes of `text`: per array to split (document order), its
// key index and its elements' texts; nullopt when the text is not a JSON
// object or has a key to split whose value is not an array of objects, or
// has such a key twice.
std::optional<std::vector<std::pair<size_t, std::vector<std::string_view>>>> reference(
    std::string_view text) {
  namespace od = simdjson::ondemand;
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return std::nullopt;
  od::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return std::nullopt;
  std::vector<std::pair<size_t, std::vector<std::string_view>>> out;
  std::array<bool, 3> seen{};
  for (auto f : root) {
    od::field field;
    if (std::move(f).get(field) != simdjson::SUCCESS) return std::nullopt;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return std::nullopt;
    size_t k = 0;
    while (k < kKeys.size() && kKeys[k] != key) ++k;
    if (k == kKeys.size()) continue;  // On-Demand skips the value
    if (seen[k]) return std::nullopt;
    seen[k] = true;
    od::array a;
    if (field.value().get_array().get(a) != simdjson::SUCCESS) return std::nullopt;
    std::vector<std::string_view> elements;
    for (auto e : a) {
      od::object o;
      std::string_view raw;
      if (std::move(e).get_object().get(o) != simdjson::SUCCESS || o.raw_json().get(raw) != simdjson::SUCCESS)
        return std::nullopt;
      // Offsets into `text`, not into the padded copy; simdjson's raw text
      // runs on to the next token, over the whitespace before it.
      while (!raw.empty() && std::string_view(" \t\n\r").find(raw.back()) != std::string_view::npos)
        raw.remove_suffix(1);
      elements.push_back(text.substr(static_cast<size_t>(raw.data() - padded.data()), raw.size()));
    }
    out.emplace_back(k, std::move(elements));
  }
  if (doc.current_location().error() == simdjson::SUCCESS) return std::nullopt;  // trailing content
  return out;
}

// Splits `text` behind `pad` spaces (moving every block edge) on several
// thread counts, blocks as small as a byte, and compares with simdjson.
void expectSplitAsSimdjson(const std::string& text, const std::string& what, size_t max_pad = 9) {
  SCOPED_TRACE(what);
  for (size_t pad = 0; pad <= max_pad; ++pad) {
    std::string padded = std::string(pad, ' ') + text;
    auto want = reference(padded);
    ASSERT_TRUE(want.has_value()) << "not a splittable text";
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
      SCOPED_TRACE("pad " + std::to_string(pad) + ", threads " + std::to_string(threads));
      auto got = splitTopLevelArrays(padded, kKeys, threads, 1);
      ASSERT_TRUE(got.has_value());
      ASSERT_EQ(got->arrays.size(), want->size());
      for (size_t j = 0; j < want->size(); ++j) {
        const auto& g = got->arrays[j];
        EXPECT_EQ(g.key, (*want)[j].first);
        EXPECT_EQ(padded[g.open], '[');
        EXPECT_EQ(padded[g.close], ']');
        ASSERT_EQ(g.elements.size(), (*want)[j].second.size());
        for (size_t i = 0; i < g.elements.size(); ++i) {
          // Same bytes at the same place.
          EXPECT_EQ(g.elements[i].data(), (*want)[j].second[i].data()) << "element " << i;
          EXPECT_EQ(g.elements[i].size(), (*want)[j].second[i].size()) << "element " << i;
        }
      }
      // The skeleton is the text without the elements, and maps back.
      Skeleton sk(padded, *got);
      for (size_t i = 0; i < sk.text().size(); ++i) ASSERT_EQ(sk.text()[i], padded[sk.original(i)]) << i;
      simdjson::padded_string sp(sk.text());
      simdjson::ondemand::parser parser;
      simdjson::ondemand::document doc;
      ASSERT_EQ(parser.iterate(sp).get(doc), simdjson::SUCCESS);
    }
  }
}

std::string json(const std::string& inner) { return "{" + inner + "}"; }

TEST(JsonSplit, FindsTheElementsSimdjsonFinds) {
  expectSplitAsSimdjson(json(R"("tensors": [{"a": 1}, {"b": [1, {"c": 2}]}], "exprs": [], "x": [1, 2])"),
                        "plain", 40);
  expectSplitAsSimdjson(json(R"("tensors":[{}],"exprs":[ {} , {"k":"v"} ],"concrete_inputs":[{"z":[]}])"),
                        "no spaces", 40);
  // Strings full of the bytes that matter, and escapes before quotes.
  expectSplitAsSimdjson(
      json(R"("name": "a\"b[{,:}]", "tensors": [{"s": "],[{\"\\"}, {"t": "\\\\", "u": "\\\"{"}, )"
           R"({"v": "\u0022]"}], "exprs": [{"w": ":,\\"}])"),
      "strings", 60);
  // Keys that only look like ours.
  expectSplitAsSimdjson(json(R"("xtensors": [{"a": 1}], "tensors ": [{}], "exprs": [{"tensors": [{}]}])"),
                        "near-miss keys", 30);
  // Whitespace of every kind around every bracket and comma.
  expectSplitAsSimdjson("\n{\t\"tensors\"\r\n:\n[ \n{ }\t,\r\n{\"a\" : [ ]}\n ] \n, \"exprs\" : [ ] }\n",
                        "whitespace", 40);
}

TEST(JsonSplit, EveryValidFixtureSplitsAsSimdjson) {
  size_t split = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::fixturePath("fixtures"))) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::string text = testing::slurp(e.path().string());
    auto want = reference(text);
    if (!want) continue;
    expectSplitAsSimdjson(text, e.path().string(), 1);
    ++split;
  }
  EXPECT_GT(split, 100u);
}

// Random objects: strings with escapes and structural bytes, nesting,
// whitespace; compared with simdjson for every block layout.
TEST(JsonSplit, RandomDocumentsSplitAsSimdjson) {
  std::mt19937 rng(2487);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto space = [&]() {
    static const char* kSpace[] = {"", "", " ", "\n", "\t", "\r\n  "};
    return std::string(kSpace[pick(6)]);
  };
  auto str = [&]() {
    static const char* kBits[] = {"a", "[", "]", "{", "}", ",", ":", "\\\"", "\\\\", "\\n", "\\u005b", "é"};
    std::string s = "\"";
    for (size_t i = pick(6); i > 0; --i) s += kBits[pick(12)];
    return s + "\"";
  };
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (depth > 3 ? pick(3) : pick(6)) {
      case 0: return str();
      case 1: return std::to_string(static_cast<int>(rng() % 2000) - 1000);
      case 2: return pick(2) ? "true" : "null";
      case 3: {
        std::string a = "[" + space();
        for (size_t i = pick(4); i > 0; --i) a += value(depth + 1) + space() + (i > 1 ? "," + space() : "");
        return a + "]";
      }
      default: {
        std::string o = "{" + space();
        for (size_t i = pick(4); i > 0; --i)
          o += str() + space() + ":" + space() + value(depth + 1) + (i > 1 ? "," + space() : "");
        return o + space() + "}";
      }
    }
  };
  for (int doc = 0; doc < 60; ++doc) {
    std::vector<std::string> fields;
    for (std::string_view k : kKeys) {
      if (pick(4) == 0) continue;
      std::string a = "[" + space();
      for (size_t i = pick(5); i > 0; --i) {
        std::string o = "{" + space();
        for (size_t f = pick(4); f > 0; --f)
          o += str() + ":" + space() + value(2) + (f > 1 ? "," + space() : "");
        a += o + "}" + space() + (i > 1 ? "," + space() : "");
      }
      fields.push_back("\"" + std::string(k) + "\"" + space() + ":" + space() + a + "]");
    }
    for (size_t i = pick(4); i > 0; --i) fields.push_back(str() + ":" + space() + value(1));
    std::shuffle(fields.begin(), fields.end(), rng);
    std::string text = "{" + space();
    for (size_t i = 0; i < fields.size(); ++i) text += (i ? "," + space() : "") + fields[i] + space();
    text += "}";
    if (!reference(text)) continue;  // a random key repeated, say
    expectSplitAsSimdjson(text, text, 3);
  }
}

TEST(JsonSplit, DeclinesTextsOfAnotherShape) {
  struct Case {
    const char* what;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"top level is an array", R"([{"tensors": []}])"},
      {"a key to split, twice", json(R"("tensors": [], "tensors": [])")},
      {"its value is not an array", json(R"("tensors": {"a": 1})")},
      {"its value is a string", json(R"("tensors": "[{}]")")},
      {"an element that is not an object", json(R"("tensors": [{}, 7, {}])")},
      {"an element that is an array", json(R"("exprs": [[1]])")},
      {"a trailing comma", json(R"("tensors": [{}, ])")},
      {"a leading comma", json(R"("tensors": [, {}])")},
      {"two commas", json(R"("tensors": [{},, {}])")},
      {"a missing comma", json(R"("tensors": [{} {}])")},
      {"bytes after an element", json(R"("tensors": [{} x, {}])")},
      {"bytes before an element", json(R"("tensors": [x{}])")},
      {"an unclosed string", json(R"("tensors": [{"a": "b}])")},
      {"an element closed by a bracket", json(R"("tensors": [{"a": 1]}])")},
      {"too many closers", json(R"("tensors": [{}]]})")},
      {"unclosed", R"({"tensors": [{})"},
      {"a second top-level value", json(R"("tensors": [])") + " {}"},
  };
  for (const Case& c : cases)
    for (unsigned threads : {1u, 3u}) {
      EXPECT_FALSE(splitTopLevelArrays(c.text, kKeys, threads, 1).has_value()) << c.what << ", " << threads;
    }
  // A key written with an escape is not recognized: that array stays in the
  // skeleton, where the reader reads it the ordinary way.
  auto escaped = splitTopLevelArrays(json(R"("\u0074ensors": [{}], "exprs": [{}])"), kKeys, 2, 1);
  ASSERT_TRUE(escaped.has_value());
  ASSERT_EQ(escaped->arrays.size(), 1u);
  EXPECT_EQ(escaped->arrays[0].key, 1u);
}

TEST(JsonSplit, SkeletonKeepsEverythingButTheElements) {
  std::string text = json(R"("a": 1, "tensors": [ {"x": 1}, {} ], "b": [2], "exprs": [{}] )");
  auto split = splitTopLevelArrays(text, kKeys, 2, 1);
  ASSERT_TRUE(split.has_value());
  Skeleton sk(text, *split);
  EXPECT_EQ(sk.text(), json(R"("a": 1, "tensors": [], "b": [2], "exprs": [] )"));
  EXPECT_EQ(sk.original(0), 0u);
  size_t close = sk.text().find("[]") + 1;
  EXPECT_EQ(text[sk.original(close)], ']');
  EXPECT_EQ(sk.original(sk.text().size() - 1), text.size() - 1);
}

}  // namespace
}  // namespace fc
