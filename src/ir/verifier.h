// Structural and type verification of a Fusion: names
// unique, references resolve, acyclic, per-op arity / rank / dtype / iter
// type consistency, well-formed extents, valid meshes, well-formed explicit
// segmentation and concrete inputs. Every problem is a located diagnostic
// (a typed place in the repro; the caller's io/ gives it a pointer and
// line:col from the source text). Linear in the size of the fusion.
#pragma once

#include <cstddef>

#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "support/parallel.h"

namespace fc {

// What verification did, for tests: whether the op checks ran in chunks,
// and whether a chunk reported so that they ran again on one thread.
struct VerifyStats {
  bool ops_in_chunks = false;
  bool ops_rerun = false;
  bool checks_in_groups = false;  // the checks before the op checks ran on two threads
  bool scalars_rerun = false;     // ... and the speculative scalar checks found something
  bool checks_in_chunks = false;  // the checks before the op checks ran in chunks on every thread
  bool chunks_rerun = false;      // ... found something, so they ran again in two groups
  bool order_built = false;       // the exprs' topological order was built (not id order, or a rerun)
};

struct VerifyOptions {
  // Threads for the per-op checks of a large fusion (0: every core). The
  // diagnostics are the same for any value.
  unsigned threads = defaultThreads();
  size_t parallel_min_exprs = 65536;  // fewer exprs are checked on one thread
  VerifyStats* stats = nullptr;       // filled in when given
};

// Returns true when no error was reported. `file` is copied into locations.
bool verifyFusion(const Fusion& f, DiagnosticSink& sink, const std::string& file = {},
                  const VerifyOptions& opts = {});

}  // namespace fc
