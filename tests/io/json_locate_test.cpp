// locateJsonPointer / fillLocations on tricky JSON: escaped keys, strings
// with brackets and quotes, unicode escapes, arrays, unresolvable pointers
// (longest prefix), and validateJson's classification.
#include "io/json_locate.h"

#include <gtest/gtest.h>

#include "io/json_validate.h"

namespace fc {
namespace {

size_t at(std::string_view json, std::string_view ptr) {
  auto r = locateJsonPointer(json, ptr);
  EXPECT_TRUE(r.has_value()) << ptr;
  return r.value_or(static_cast<size_t>(-1));
}

TEST(JsonLocate, Basics) {
  std::string_view j = R"( {"a": [10, {"b": true}], "c": null} )";
  EXPECT_EQ(at(j, ""), 1u);
  EXPECT_EQ(j.substr(at(j, "/a"), 1), "[");
  EXPECT_EQ(j.substr(at(j, "/a/0"), 2), "10");
  EXPECT_EQ(j.substr(at(j, "/a/1/b"), 4), "true");
  EXPECT_EQ(j.substr(at(j, "/c"), 4), "null");
  EXPECT_FALSE(locateJsonPointer(j, "/a/2").has_value());
  EXPECT_FALSE(locateJsonPointer(j, "/a/01").has_value());
  EXPECT_FALSE(locateJsonPointer(j, "/a/-").has_value());
  EXPECT_FALSE(locateJsonPointer(j, "/d").has_value());
  EXPECT_FALSE(locateJsonPointer(j, "/c/x").has_value());
  EXPECT_FALSE(locateJsonPointer(j, "a").has_value());
}

TEST(JsonLocate, EscapedKeysAndTrickyStrings) {
  std::string_view j =
      R"({"x": "}]{[\"", "a/b": 1, "m~n": 2, "q\"k": 3, "\u00e9t\u00e9": 4, "été2": 5, "\ud83d\ude00": 6,
          "arr": ["]", "\\", {"k": "{"}], "": 7})";
  EXPECT_EQ(j.substr(at(j, "/a~1b"), 1), "1");
  EXPECT_EQ(j.substr(at(j, "/m~0n"), 1), "2");
  EXPECT_EQ(j.substr(at(j, "/q\"k"), 1), "3");
  EXPECT_EQ(j.substr(at(j, "/\xc3\xa9t\xc3\xa9"), 1), "4");  // \u00e9 decodes to é
  EXPECT_EQ(j.substr(at(j, "/été2"), 1), "5");
  EXPECT_EQ(j.substr(at(j, "/\xf0\x9f\x98\x80"), 1), "6");  // surrogate pair
  EXPECT_EQ(j.substr(at(j, "/arr/2/k"), 3), "\"{\"");
  EXPECT_EQ(j.substr(at(j, "/"), 1), "7");                  // the empty key
  EXPECT_FALSE(locateJsonPointer(j, "/a~2b").has_value());  // bad escape in the pointer
}

TEST(JsonLocate, FirstOfDuplicateKeys) {
  std::string_view j = R"({"k": 1, "k": 2})";
  EXPECT_EQ(j.substr(at(j, "/k"), 1), "1");
}

TEST(JsonLocate, FillUsesLongestPrefix) {
  SourceText src("f.json", "{\n  \"tensors\": [\n    {\"name\": \"T0\"}\n  ]\n}\n");
  std::vector<Diagnostic> ds(3);
  ds[0].loc = Location{"f.json", "/tensors/0/name"};
  ds[1].loc = Location{"f.json", "/tensors/0/logical/3"};  // -> /tensors/0
  ds[2].loc = Location{"other.json", "/tensors"};          // another file: untouched
  ds[0].note("see here", Location{"f.json", "/tensors"});
  fillLocations(ds, src);
  EXPECT_EQ(ds[0].loc.line, 3);
  EXPECT_EQ(ds[0].loc.col, 14);
  EXPECT_EQ(ds[1].loc.line, 3);
  EXPECT_EQ(ds[1].loc.col, 5);
  EXPECT_EQ(ds[2].loc.line, 0);
  EXPECT_EQ(ds[0].notes[0].loc.line, 2);
  EXPECT_EQ(ds[0].notes[0].loc.col, 14);
}

TEST(JsonLocate, MalformedTextNeverCrashes) {
  for (std::string_view j :
       {"", "{", "{\"a\"", "{\"a\":", "[1,", "{\"a\": \"\\", "[[[[", "]]]", "{\"a\" 1}"}) {
    (void)locateJsonPointer(j, "/a");
    (void)locateJsonPointer(j, "/0/0");
    (void)locateJsonPointer(j, "");
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(locateJsonPointer(deep, "/0/0/1").has_value());
  EXPECT_EQ(at(deep, "/0/0/0"), 3u);
}

TEST(JsonValidate, Classification) {
  EXPECT_FALSE(validateJson(R"({"a": [1, 2.5e-3, -0, "x\u00e9", true, false, null]})").has_value());
  auto p = validateJson("{\"a\": [1, 2,]}");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::JsonSyntax);
  EXPECT_EQ(p->offset, 12u);
  EXPECT_EQ(p->pointer, "/a/2");
  p = validateJson("{\"a\": [1, 2");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::JsonTruncated);
  p = validateJson("{\"a\": \"\xc3");  // a 2-byte character cut by the end: truncated
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::JsonTruncated);
  p = validateJson("{\"a\": \"\xc3\x28\"}");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::InvalidUtf8);
  EXPECT_EQ(p->offset, 7u);
  p = validateJson("\"\xed\xa0\x80\"");  // UTF-8 encoded surrogate
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::InvalidUtf8);
  p = validateJson(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'));
  EXPECT_FALSE(p.has_value());
  p = validateJson(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']'));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->code, DiagCode::JsonTooDeep);
  EXPECT_EQ(p->offset, kMaxJsonDepth);
  for (std::string_view bad :
       {"01", "1.", "-", "1e", "tru", "\"\\x\"", "{\"a\" 1}", "[1 2]", "{,}", "\"\t\""}) {
    p = validateJson(bad);
    EXPECT_TRUE(p.has_value()) << bad;
  }
}

}  // namespace
}  // namespace fc
