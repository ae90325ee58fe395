// Run inputs from the user's tensors (run --inputs / --inputs-per-rank, the
// Python API) and the tensor files --save-inputs / --save-outputs write.
//
// Matching. A list of tensors is matched to the fusion's inputs by name when
// any of its names is the name of a fusion input (tensor names `T0`, scalar
// names `s1`): then every tensor input needs its name, scalar inputs may be
// left out (they come from the repro or the generator), and a tensor whose
// name is no input's is an error. Otherwise by position: the list has one
// tensor per fusion input, or one per tensor input (the scalar inputs then
// come from the repro or the generator); a tensor's name does not matter.
//
// Checks (FC0506 at the input's place, naming the file and the tensor):
// the dtype is the input's (Int and Index are I64); the rank is the number
// of non-Reduction logical axes; the sizes fit the input's constant
// extents, its Broadcast axes (1), extents already bound (another input,
// --bind) and the repro's concrete_inputs (global = local x mesh size on a
// sharded dim); with concrete strides, elements that share a storage offset
// hold the same value (a stride-0 axis repeats its values).
//
// Multi-device: --inputs holds global tensors; each rank gets its shard
// (exec/sharding.h: DID-parallel dims divided, replicas equal).
// --inputs-per-rank holds one list per world rank, each with the local
// tensors of the inputs that live on that rank, matched as above; they are
// assembled into the global tensor and replicas must agree bit for bit.
// O(total elements).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/inputs.h"
#include "exec/tensor_file.h"

namespace fc::exec {

struct ProvidedInputs {
  std::vector<FileTensor> global;                 // --inputs: global tensors
  std::string source;                             // its file name, for messages
  std::vector<std::vector<FileTensor>> per_rank;  // --inputs-per-rank: one list per world rank
  std::vector<std::string> rank_sources;          // their file names
};

// The inputs of `f` from `p`, binding `f`'s symbols into `scalars`; scalar
// inputs that `p` does not hold come from the repro or the generator as in
// generateInputs. Throws ExecError (FC0506, FC0114) on a mismatch.
RunInputs inputsFromTensors(const Fusion& f, const World& world, ScalarValues& scalars,
                            const ProvidedInputs& p, uint64_t seed, int64_t default_extent,
                            MemoryBudget* budget);

// The run's inputs as a tensor file: the global tensors and scalars (0-d)
// under their fusion names, in input order; metadata records what wrote it.
TensorFile inputsToFile(const Fusion& f, const RunInputs& in, uint64_t seed);

// Named global tensors (a run's outputs) as a tensor file, in order.
TensorFile tensorsToFile(const std::vector<std::pair<std::string, const HostTensor*>>& tensors,
                         const std::string& role);

}  // namespace fc::exec
