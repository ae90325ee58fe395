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
#include "support/parallel.h"

namespace fc {

// What a read did, for tests and --time-report: how many arrays were read
// in chunks, in how many chunks in all, whether a chunk gave up so that
// the text was read again on one thread, and how many top-level arrays were
// split without indexing the whole text (0 when it was indexed whole).
struct ReadStats {
  unsigned chunked_arrays = 0;
  unsigned chunks = 0;
  bool reread = false;
  unsigned split_arrays = 0;
  bool names_in_parallel = false;          // the tensor names were interned on every thread
  bool plain_scalars_in_parallel = false;  // "scalars" held declarations only, read on every thread
};

struct ReadOptions {
  uint64_t max_bytes = 0;  // 0: no limit; otherwise FC0005 beyond it, checked before reading
  // Threads for the "tensors" and "exprs" arrays of a large repro: 0 uses
  // every core, 1 reads on the calling thread only. The result, and every
  // diagnostic, is the same for any value (a chunk that meets anything but
  // a valid element makes the whole text be read again on one thread).
  unsigned threads = defaultThreads();
  // Texts shorter than this are read on one thread.
  size_t parallel_min_bytes = size_t{4} << 20;
  // The split of the top-level arrays (io/json_split.h) gives each thread
  // this many bytes at least; tests lower it to put block edges anywhere.
  size_t split_min_block = size_t{1} << 20;
  ReadStats* stats = nullptr;  // filled in when given
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
