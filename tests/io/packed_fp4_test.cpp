// Packed FP4 inputs: the stride nvFuser keeps follows the allocation order, packing inverts
// unpacking, and sizes or strides no packed tensor gives have no packed form.
#include "io/packed_fp4.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

TensorId fp4Input(Fusion& f, size_t rank) {
  std::vector<AxisId> axes;
  for (size_t d = 0; d < rank; ++d)
    axes.push_back(f.addAxis(static_cast<uint32_t>(f.axes.size()), IterType::Iteration, ParallelType::Serial,
                             f.addSymbol("i" + std::to_string(f.axes.size()))));
  return f.addTensor("T" + std::to_string(f.tensors.size()), DType::Float4_e2m1fn, MemoryType::Global, axes);
}

TEST(PackedFp4, KeptStrideIsTheLastAllocationAxis) {
  Fusion f;
  TensorId plain = fp4Input(f, 3), ordered = fp4Input(f, 3), scalar = fp4Input(f, 0);
  const std::vector<AxisId> logical = f.tensors[ordered].logical;
  f.tensors[ordered].allocation = {logical[0], logical[2], logical[1]};
  EXPECT_EQ(packedFp4KeptStride(f, plain), 2u);
  EXPECT_EQ(packedFp4KeptStride(f, ordered), 1u);
  EXPECT_EQ(packedFp4KeptStride(f, scalar), std::nullopt);

  // A [4, 128, 32] packed tensor transposed to [4, 32, 128], strides (4096, 1, 32).
  SizesAndStrides packed{{4, 32, 128}, {4096, 1, 32}};
  SizesAndStrides a = unpackFp4(f, plain, packed), b = unpackFp4(f, ordered, packed);
  EXPECT_EQ(a.sizes, (std::vector<int64_t>{4, 32, 256}));
  EXPECT_EQ(a.strides, (std::vector<int64_t>{8192, 2, 32}));
  EXPECT_EQ(b.sizes, (std::vector<int64_t>{4, 32, 256}));
  EXPECT_EQ(b.strides, (std::vector<int64_t>{8192, 1, 64}));
  for (auto [t, bound] : {std::pair{plain, a}, std::pair{ordered, b}}) {
    auto back = packFp4(f, t, bound);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->sizes, packed.sizes);
    EXPECT_EQ(back->strides, packed.strides);
  }
  // Contiguous: no strides recorded, none written.
  auto contiguous = packFp4(f, plain, {{96, 4, 64}, {}});
  ASSERT_TRUE(contiguous.has_value());
  EXPECT_EQ(contiguous->sizes, (std::vector<int64_t>{96, 4, 32}));
  EXPECT_TRUE(contiguous->strides.empty());
}

TEST(PackedFp4, NoPackedFormForOddSizesOrStrides) {
  Fusion f;
  TensorId t = fp4Input(f, 2);
  EXPECT_FALSE(packFp4(f, t, {{4, 7}, {}}).has_value());
  EXPECT_FALSE(packFp4(f, t, {{4, 8}, {9, 1}}).has_value());
  EXPECT_TRUE(packFp4(f, t, {{4, 8}, {10, 1}}).has_value());
}

}  // namespace
}  // namespace fc
