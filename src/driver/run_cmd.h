// `fusecheck run`: execute the original (or repaired) segmented program and
// compare it with the reference.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "driver/common.h"

namespace fc::driver {

struct RunArgs {
  std::string file;
  std::string device = "cpu";
  std::string against;
  std::string reference = "exact";
  std::string reference_device;  // "", "cpu" or "cuda"
  bool fix = false;
  std::optional<uint64_t> seed;
  std::optional<double> rtol, atol;
  PipelineFlags flags;
  OutputFormat format = OutputFormat::Text;
  uint64_t max_bytes = 0;
  // --ranks N: one process per rank (docs/multigpu.md); 0: the one-process
  // simulation. --rank-timeout: the longest wait on another rank.
  int64_t ranks = 0;
  double rank_timeout = 300;
  // Tensor files (.safetensors / .npz, exec/tensor_file.h): --inputs (global
  // tensors), --inputs-per-rank (one file per rank, local tensors),
  // --save-inputs and --save-outputs.
  std::string inputs;
  std::vector<std::string> inputs_per_rank;
  std::string save_inputs, save_outputs;
  // The progress line (support/progress.h): auto (stderr a terminal),
  // always or never; under --ranks only rank 0 draws it.
  std::string progress = "auto";
};
int run(const RunArgs& a, std::ostream& out, std::ostream& err);

}  // namespace fc::driver
