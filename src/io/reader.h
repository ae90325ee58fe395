// The repro reader: JSON text (format "fusecheck.fusion/1", docs/format.md)
// straight to the IR, without building a DOM (simdjson On-Demand). Every
// problem is a located diagnostic (JSON pointer + line:col); nothing throws
// to the caller and no input crashes or recurses without bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"

namespace fc {

struct ReadOptions {
  uint64_t max_bytes = 0;  // 0: no limit; otherwise FC0005 beyond it, checked before reading
};

// Parses `source.text()`. Diagnostics carry source.path() and line:col.
std::optional<Fusion> readFusion(const SourceText& source, DiagnosticSink& sink,
                                 const ReadOptions& opts = {});

// Reads a whole file as source text, padded for in-place parsing: FC0001 when
// it cannot be read, FC0005 when it is larger than max_bytes (0: no limit),
// checked before reading.
std::optional<SourceText> readSourceFile(const std::string& path, DiagnosticSink& sink,
                                         uint64_t max_bytes = 0);

// Reads the file into `source_out` first (readSourceFile).
std::optional<Fusion> readFusionFile(const std::string& path, DiagnosticSink& sink, SourceText& source_out,
                                     const ReadOptions& opts = {});

}  // namespace fc
