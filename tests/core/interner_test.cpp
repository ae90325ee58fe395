// Interner: ids are dense and stable, lookups survive growth, copies keep
// ids and own their characters, and moved-from interners are reusable.
#include "support/interner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fc {
namespace {

TEST(Interner, IdsAreDenseAndStableAcrossGrowth) {
  Interner in;
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) names.push_back((i % 2 ? "T" : "i") + std::to_string(i));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(in.intern(names[i]), i);
  EXPECT_EQ(in.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(in.intern(names[i]), i);
    EXPECT_EQ(in.find(names[i]), i);
    EXPECT_EQ(in.str(static_cast<NameId>(i)), names[i]);
  }
  EXPECT_EQ(in.find("T-missing"), kNoName);
  EXPECT_EQ(in.size(), names.size());
}

TEST(Interner, EmptyAndLongNamesAndPrefixes) {
  Interner in;
  EXPECT_EQ(in.find(""), kNoName);
  NameId e = in.intern("");
  std::string long_name(200000, 'x');  // longer than one chunk
  NameId l = in.intern(long_name);
  NameId a = in.intern("i1");
  NameId b = in.intern("i10");
  EXPECT_EQ(in.find(""), e);
  EXPECT_EQ(in.str(l), long_name);
  EXPECT_NE(a, b);
  EXPECT_EQ(in.str(a), "i1");
  EXPECT_EQ(in.find(std::string(199999, 'x')), kNoName);
}

TEST(Interner, CopyKeepsIdsAndOwnsItsCharacters) {
  Interner in;
  for (int i = 0; i < 1000; ++i) in.intern("n" + std::to_string(i));
  Interner copy(in);
  in = Interner();  // the original's chunks are gone
  ASSERT_EQ(copy.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(copy.find("n" + std::to_string(i)), static_cast<NameId>(i));
  EXPECT_EQ(copy.intern("new"), 1000u);
  EXPECT_EQ(copy.str(1000), "new");
  Interner assigned;
  assigned.intern("stale");
  assigned = copy;
  EXPECT_EQ(assigned.find("stale"), kNoName);
  EXPECT_EQ(assigned.find("n7"), 7u);
}

TEST(Interner, MovedFromIsEmptyAndReusable) {
  Interner in;
  in.intern("a");
  Interner moved(std::move(in));
  EXPECT_EQ(moved.find("a"), 0u);
  EXPECT_EQ(in.size(), 0u);  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(in.intern("b"), 0u);
  EXPECT_EQ(moved.str(0), "a");
  EXPECT_EQ(moved.find("b"), kNoName);
}

TEST(Interner, ReserveKeepsContents) {
  Interner in;
  in.intern("x");
  in.reserve(100000);
  EXPECT_EQ(in.find("x"), 0u);
  EXPECT_EQ(in.intern("y"), 1u);
}

// Numbered names take the dense path; these are the cases where the dense
// path and the hash table must agree.
TEST(Interner, NumberedNamesAreExactAndSpillWhenSparse) {
  Interner in;
  NameId t1 = in.intern("T1");
  NameId t01 = in.intern("T01");  // a leading zero: another name
  NameId t10 = in.intern("T10");
  NameId t0 = in.intern("T0");
  NameId big = in.intern("T999999999");  // far beyond the dense array: spills
  NameId i1 = in.intern("i1");           // same number, another prefix
  NameId bare = in.intern("1");          // no prefix
  NameId longp = in.intern("abcdefg1");  // prefix too long for the dense path
  std::vector<NameId> all{t1, t01, t10, t0, big, i1, bare, longp};
  for (size_t a = 0; a < all.size(); ++a)
    for (size_t b = a + 1; b < all.size(); ++b) EXPECT_NE(all[a], all[b]);
  EXPECT_EQ(in.find("T1"), t1);
  EXPECT_EQ(in.find("T01"), t01);
  EXPECT_EQ(in.find("T999999999"), big);
  EXPECT_EQ(in.find("T999999998"), kNoName);
  EXPECT_EQ(in.find("T2"), kNoName);
  EXPECT_EQ(in.find("T1234567890"), kNoName);  // ten digits: the hash table
  // After the dense array has grown past a spilled number, the number is
  // still found where it was put, and not interned twice.
  Interner sp;
  NameId far = sp.intern("x9000");  // beyond 4 * 1 + 4096: spilled
  for (int i = 0; i < 3000; ++i) sp.intern("x" + std::to_string(i));
  EXPECT_EQ(sp.intern("x9000"), far);
  EXPECT_EQ(sp.find("x9000"), far);
  EXPECT_EQ(sp.str(far), "x9000");
  EXPECT_EQ(sp.size(), 3001u);
}

TEST(Interner, ManyPrefixesFallBackToTheHashTable) {
  Interner in;
  std::vector<std::string> names;
  for (char c = 'a'; c <= 'z'; ++c)
    for (int i = 0; i < 50; ++i) names.push_back(std::string(1, c) + std::to_string(i));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(in.intern(names[i]), i);
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(in.find(names[i]), i) << names[i];
  Interner copy(in);
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(copy.intern(names[i]), i) << names[i];
  EXPECT_EQ(copy.size(), names.size());
}

}  // namespace
}  // namespace fc
