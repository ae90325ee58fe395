// support/prefault: populating pages never changes what they hold, for one
// block or a list of blocks of any sizes and alignments, on any thread count.
#include "support/prefault.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace fc {
namespace {

// Block sizes around a page and around the threshold, at odd offsets.
TEST(Prefault, ListOfBlocksKeepsTheirContents) {
  std::vector<std::vector<uint32_t>> data;
  for (size_t words : {size_t{1}, size_t{1023}, size_t{1025}, size_t{3} << 20, size_t{5} << 20, size_t{0}})
    data.emplace_back(words);
  uint32_t next = 7;
  for (auto& d : data)
    for (uint32_t& x : d) x = next++ * 2654435761u;
  const std::vector<std::vector<uint32_t>> expected = data;
  std::vector<PrefaultBlock> blocks;
  for (auto& d : data)
    blocks.push_back({d.empty() ? nullptr : d.data() + (d.size() > 1 ? 1 : 0), d.size() * 4});
  blocks.push_back({nullptr, 1 << 20});  // ignored
  for (unsigned threads : {1u, 2u, 5u, 16u}) {
    prefault(blocks, threads);
    ASSERT_EQ(data, expected) << threads << " threads";
  }
  prefault(data[3].data(), data[3].size() * 4, 3);
  EXPECT_EQ(data, expected);
}

// resizePrefaulted is resize: the old elements stay, the new ones are `x`,
// and growing within the capacity does not move the block.
TEST(Prefault, ResizePrefaultedIsResize) {
  std::vector<uint64_t> v(1000);
  std::iota(v.begin(), v.end(), 5);
  resizePrefaulted(v, size_t{4} << 20, 4, uint64_t{9});
  ASSERT_EQ(v.size(), size_t{4} << 20);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i + 5);
  for (size_t i = 1000; i < v.size(); ++i) ASSERT_EQ(v[i], 9u) << i;
  v.resize(10);
  const uint64_t* at = v.data();
  resizePrefaulted(v, 4000, 4, uint64_t{1});
  EXPECT_EQ(v.data(), at);
  EXPECT_EQ(v[3999], 1u);
  EXPECT_EQ(v[9], 14u);
}

}  // namespace
}  // namespace fc
