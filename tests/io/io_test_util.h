// Helpers shared by the io tests: read a repro from text or a fixture path.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/reader.h"

namespace fc::testing {

inline std::string fixturePath(const std::string& rel) { return std::string(FC_SOURCE_DIR) + "/" + rel; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ReadResult {
  std::optional<Fusion> fusion;
  DiagnosticSink sink;
  SourceText source;
};

inline ReadResult readText(const std::string& text, const ReadOptions& opts = {}) {
  ReadResult r;
  r.source = SourceText("test.json", text);
  r.fusion = readFusion(r.source, r.sink, opts);
  return r;
}

}  // namespace fc::testing
