// The exact reference on the GPU: for production
// shapes an fp64 reference on the host is too slow (an 8192^3 matmul is a
// teraflop), so `run --device cuda` computes the Exact flavour here with the
// CUDA executor's kernels in fp64 and cuBLAS DGEMM.
//
// What it computes is runReference's Exact flavour (exec/reference.h): the
// unsegmented fusion on global tensors. The fusion is copied with every
// floating-point tensor promoted to Double, every axis Serial and no mesh —
// a sum over a DID axis is then the plain reduction the collective would
// perform, a resharding set a copy — and run as one compute segment on the
// one GPU (integer tensors stay exact, Bool stays Bool; ops without a
// device kernel run on the host as in the segmented run). Inputs are the
// generated global tensors in fp64 without rounding: uploaded whole when the
// host holds them, else assembled on the device from the shards (from the
// host's, or from the device's own for inputs held there). The path
// metadata the tolerance needs (least precise dtype, reduction size,
// cross-rank hops) is computed on the original fusion from the global
// shapes (computePaths). Differences from the host reference: summation
// order (device reductions and DGEMM are not sequential), i.e. roundoff
// at fp64 level, far below any dtype tolerance.
//
// Cost: the kernels' O(numel) and the DGEMMs' O(M N K) in fp64 (H200:
// ~67 TFLOP/s), device memory of every materialized tensor in fp64 (charged
// to the budget). Throws ExecError (FC0902 without a device, FC0903/4).
#pragma once

#include <memory>

#include "exec/cuda/device_inputs.h"
#include "exec/cuda/device_tensor.h"
#include "exec/reference.h"

namespace fc::exec::cuda {

// The reference with its outputs left on the device, where the comparison
// reads them a chunk at a time (exec/cuda/device_source.h): the host never
// holds them whole. Not copyable or movable (its program refers to its own
// fusion).
class DeviceReference {
 public:
  // Inputs whose shards went to a sink (HeldInputs::None) are read from
  // `device_inputs`.
  DeviceReference(const Fusion& f, const RunInputs& in, MemoryBudget* budget,
                  const DeviceInputs* device_inputs = nullptr);
  ~DeviceReference();
  DeviceReference(const DeviceReference&) = delete;
  DeviceReference& operator=(const DeviceReference&) = delete;

  // The path metadata of every tensor of f (values unset).
  const ReferenceResult& paths() const { return meta_; }
  // The value of f's output `t` on the device, or null.
  const DeviceTensor* value(TensorId t) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  ReferenceResult meta_;
};

// The same with f's outputs downloaded into the result's values.
ReferenceResult runExactReferenceCuda(const Fusion& f, const RunInputs& in, MemoryBudget* budget);

}  // namespace fc::exec::cuda
