// FP4 tensors handed to nvFuser packed, two values a byte (torch.float4_e2m1fn_x2, for a
// Float4_e2m1fn fusion input): how nvFuser turns the packed tensor's sizes and strides into its
// own, and back. nvFuser doubles the last logical size and every allocation stride but the last
// one in allocation order, which it keeps as it is (csrc/runtime/executor_kernel_arg.cpp:305-345,
// getLastDimAdjustment in csrc/type.h @ 81c4b22fd). Sizes and strides here are in logical order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/fusion.h"

namespace fc {

struct SizesAndStrides {
  std::vector<int64_t> sizes, strides;
};

// The logical position of the stride nvFuser keeps for input `t`: its last allocation axis when
// it has an allocation domain, else its last logical axis. nullopt for a tensor of rank 0.
std::optional<size_t> packedFp4KeptStride(const Fusion& f, TensorId t);

// The sizes and strides nvFuser binds for a packed tensor of `packed` sizes and strides.
SizesAndStrides unpackFp4(const Fusion& f, TensorId t, SizesAndStrides packed);

// The packed tensor that binds to `bound` (nvFuser's sizes and strides); nullopt when no packed
// tensor does (an odd last size or an odd stride to halve).
std::optional<SizesAndStrides> packFp4(const Fusion& f, TensorId t, SizesAndStrides bound);

}  // namespace fc
