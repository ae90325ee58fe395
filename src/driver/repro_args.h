// The arguments the commands on one repro file share: the file, the output
// format (--format) and the input size limit (--max-bytes); the commands
// that run the pipeline add its flags (--nvfuser, --bind, ...).
#pragma once

#include <cstdint>
#include <string>

#include "driver/common.h"

namespace fc::driver {

struct ReproArgs {
  std::string file;
  OutputFormat format = OutputFormat::Text;
  uint64_t max_bytes = 0;
};

struct PipelineArgs : ReproArgs {
  PipelineFlags flags;
};

}  // namespace fc::driver
