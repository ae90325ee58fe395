// Interner: ids are dense and stable, lookups survive growth, copies keep
// ids and own their characters, and moved-from interners are reusable.
#include "support/interner.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// internAll must give the ids that interning one name at a time gives, and
// leave a table that answers every later intern and find the same way.
void expectInternAllAsOneByOne(const std::vector<std::string>& before, const std::vector<std::string>& batch,
                               bool parallel, const std::string& what) {
  SCOPED_TRACE(what);
  Interner a, b;
  for (const std::string& s : before) {
    a.intern(s);
    b.intern(s);
  }
  std::vector<std::string_view> views(batch.begin(), batch.end());
  std::vector<NameId> ids(batch.size(), 12345);
  EXPECT_EQ(a.internAll(views, ids, 4), parallel);
  for (size_t i = 0; i < batch.size(); ++i) ASSERT_EQ(ids[i], b.intern(batch[i])) << i;
  ASSERT_EQ(a.size(), b.size());
  for (NameId n = 0; n < a.size(); ++n) ASSERT_EQ(a.str(n), b.str(n));
  for (const std::string& s :
       {std::string("T0"), std::string("T77"), std::string("T9999"), std::string("T20000"), std::string("x"),
        std::string("U3"), std::string("T123456789")})
    EXPECT_EQ(a.find(s), b.find(s)) << s;
  for (const std::string& s : {std::string("T20001"), std::string("T5"), std::string("zz")})
    EXPECT_EQ(a.intern(s), b.intern(s)) << s;
  Interner c = a;  // copies keep the bulk-added names
  for (NameId n = 0; n < a.size(); ++n) ASSERT_EQ(c.str(n), a.str(n));
}

std::vector<std::string> numbered(const std::string& prefix, size_t from, size_t to) {
  std::vector<std::string> v;
  for (size_t i = from; i < to; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

TEST(Interner, InternAllGivesTheIdsOfInterningInOrder) {
  std::vector<std::string> scalars = numbered("i", 0, 500);
  std::vector<std::string> tensors = numbered("T", 0, 20000);
  std::reverse(tensors.begin() + 100, tensors.begin() + 9000);  // any order of numbers
  expectInternAllAsOneByOne(scalars, tensors, true, "new tensor names");
  // Some names interned before (a scalar named like a tensor): they keep
  // their ids and take none of the new ones.
  std::vector<std::string> mixed = tensors;
  mixed[10] = "i3";
  mixed[15000] = "i499";
  expectInternAllAsOneByOne(scalars, mixed, true, "some names interned before");
  expectInternAllAsOneByOne(tensors, tensors, true, "all interned before");
  // Anything else is interned one by one, with the same result.
  std::vector<std::string> twice = tensors;
  twice[12000] = twice[7];
  expectInternAllAsOneByOne(scalars, twice, false, "a name twice");
  std::vector<std::string> prefixes = tensors;
  prefixes[6000] = "U6000";
  expectInternAllAsOneByOne(scalars, prefixes, false, "two prefixes");
  std::vector<std::string> plain = tensors;
  plain[9999] = "weights";
  expectInternAllAsOneByOne(scalars, plain, false, "a name that is not numbered");
  std::vector<std::string> sparse = tensors;
  sparse[3] = "T123456789";
  expectInternAllAsOneByOne(scalars, sparse, false, "a number far past the others");
  expectInternAllAsOneByOne(scalars, numbered("T", 0, 100), false, "too few to split");
}

}  // namespace
}  // namespace fc
