// Comparing an output with its reference: max abs / rel error,
// ULP distance in the output's dtype, mismatch count, the worst positions
// with both values, under a magnitude-aware tolerance (docs/numerics.md):
//
//   d     = the least precise floating dtype produced on the reference's
//           path to the output (the output's own dtype included)
//   K     = the largest reduction on that path (sum / mean / var extents,
//           matmul / linear K, the ranks of a cross-rank sum)
//   H     = the largest number of low-precision hops of a cross-rank
//           reduction on that path (ranks - 1: a ring rounds once per hop)
//   S     = max |reference| over the output (its scale)
//   rtol  = rtol0(d) * (1 + H/2) + sqrt(K) * u_acc   (u_acc = 2^-24, or 2^-53 if d is Double)
//   atol  = atol0(d) + rtol * S
//   element i mismatches iff |a_i - r_i| > atol (a normwise bound: every
//   error is measured against the output's scale, so an element that is
//   near zero through cancellation is not judged by its own magnitude), or
//   exactly one of a_i, r_i is NaN, or they are different infinities.
//
// rtol0 / atol0 are torch.testing.assert_close's defaults (float16 1e-3 /
// 1e-5, bfloat16 1.6e-2 / 1e-5, float32 1.3e-6 / 1e-5, float64 1e-7 /
// 1e-7); fp8, which torch has no defaults for, use eps / the smallest
// subnormal; integer and Bool outputs must match exactly. An override
// (repro "tolerance" or --rtol/--atol) replaces the policy by the plain rule
// |a - r| <= atol + rtol * |r|. The torch-default verdict is reported beside.
// O(numel * log worst) per comparison; two passes over the reference (its
// scale, then the elements).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/host_tensor.h"

namespace fc::exec {

class TensorSource;

struct TolerancePolicy {
  DType out_dtype = DType::Float;
  DType path_dtype = DType::Float;
  int64_t reduction_size = 1;
  int64_t collective_hops = 0;
  std::optional<double> rtol;  // overrides
  std::optional<double> atol;
};

// torch.testing.assert_close defaults for a dtype; nullopt where torch has
// none (fp8) — integers and Bool are (0, 0).
std::optional<std::pair<double, double>> torchDefaults(DType t);

struct WorstElement {
  std::vector<int64_t> index;
  double actual = 0;
  double expected = 0;
  double abs_error = 0;
  double allowed = 0;  // the bound this element had to meet
  uint64_t ulp = 0;
};

struct Comparison {
  std::string name;  // output tensor name
  DType dtype = DType::Float;
  DType path_dtype = DType::Float;
  int64_t reduction_size = 1;
  Shape shape;      // actual
  Shape ref_shape;  // reference
  bool shape_match = true;
  int64_t numel = 0;
  int64_t mismatches = 0;
  double max_abs = 0;
  double max_rel = 0;  // over elements with a nonzero reference
  uint64_t max_ulp = 0;
  int64_t collective_hops = 0;
  double rtol = 0, atol = 0, scale = 0;  // policy: allowed = atol; override: atol + rtol * |ref|
  bool overridden = false;
  std::optional<double> torch_rtol, torch_atol;
  int64_t torch_mismatches = -1;    // under torch's defaults on the output dtype; -1: none defined
  std::vector<WorstElement> worst;  // largest |error| / allowed first
  std::string replica_note;         // non-empty when replicas of a replicated output disagree
  bool passed() const { return shape_match && mismatches == 0 && replica_note.empty(); }
};

Comparison compareTensors(const std::string& name, const HostTensor& actual, const HostTensor& expected,
                          const TolerancePolicy& policy, size_t max_worst = 5);
// The same, reading both a chunk at a time (exec/tensor_source.h): the host
// holds two chunks of `chunk` elements, wherever the values live. The
// result does not depend on `chunk`.
Comparison compareTensors(const std::string& name, const TensorSource& actual, const TensorSource& expected,
                          const TolerancePolicy& policy, size_t max_worst = 5, int64_t chunk = 0);

}  // namespace fc::exec
