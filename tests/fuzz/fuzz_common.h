// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) and the replay
// test (replay_test.cpp), which compiles the same harness bodies into a
// GoogleTest executable of the default build.
//
// A harness is written once with FC_FUZZ_TARGET(name) { ... body over
// (data, size) ... }: in a fuzzer build (FC_FUZZ_REPLAY undefined) the body
// is LLVMFuzzerTestOneInput; in the replay build it is fcFuzz_<name>, which
// the replay test calls on every stored input.
//
// What counts as a finding: a sanitizer report, a crash, a hang, an
// fc::InternalError (src/support/internal_error.h) or any other exception
// escaping the library, and a broken harness invariant (FC_FUZZ_REQUIRE).
// In a fuzzer build a finding traps (libFuzzer records the input); in the
// replay build it throws FuzzFailure, which the test reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/fusion.h"
#include "ir/verifier.h"
#include "support/internal_error.h"

namespace fc::fuzz {

struct FuzzFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& what) {
#ifdef FC_FUZZ_REPLAY
  throw FuzzFailure(what);
#else
  std::fprintf(stderr, "fusecheck fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
#endif
}

// Runs `body`, turning an internal error or any escaping exception into a
// finding. Diagnostics are the library's normal answer and are not.
template <typename F>
int guarded(const char* harness, F&& body) {
  try {
    body();
  } catch (const FuzzFailure&) {
    throw;
  } catch (const InternalError& e) {
    fail(std::string(harness) + ": internal error: " + e.what());
  } catch (const std::exception& e) {
    fail(std::string(harness) + ": exception escaped: " + e.what());
  } catch (...) {
    fail(std::string(harness) + ": unknown exception escaped");
  }
  return 0;
}

inline std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A failed load must say why: nullopt with no error diagnostic is a finding.
inline void requireErrorOnFailure(const char* what, bool ok, const DiagnosticSink& sink) {
  if (!ok && !sink.hasErrors()) fail(std::string(what) + " failed without an error diagnostic");
}

// The writer round trip on a verified fusion: canonical JSON must read back
// without errors, verify, and write back byte-identical (docs/format.md:
// load -> save -> load gives the same graph, a second save is identical).
inline void requireRoundTrip(const Fusion& f) {
  std::string first = writeFusion(f);
  DiagnosticSink sink;
  SourceText src("fuzz-roundtrip.json", first);
  std::optional<Fusion> again = readFusion(src, sink);
  if (!again || sink.hasErrors())
    fail("round trip: the canonical JSON does not read back:\n" + first.substr(0, 4000) +
         (sink.all().empty() ? std::string() : "\nfirst diagnostic: " + sink.all().front().message));
  again->rebuildUses();
  DiagnosticSink vsink;
  if (!verifyFusion(*again, vsink, "fuzz-roundtrip.json"))
    fail("round trip: the re-read fusion does not verify: " +
         (vsink.all().empty() ? std::string() : vsink.all().front().message));
  if (again->tensors.size() != f.tensors.size() || again->exprs.size() != f.exprs.size() ||
      again->inputs.size() != f.inputs.size() || again->outputs.size() != f.outputs.size())
    fail("round trip: node counts differ after re-reading");
  std::string second = writeFusion(*again);
  if (second != first)
    fail("round trip: the second save differs from the first:\n" + first + "\n---\n" + second);
}

}  // namespace fc::fuzz

#ifdef FC_FUZZ_REPLAY
#define FC_FUZZ_TARGET(name) int fcFuzz_##name(const uint8_t* data, size_t size)
#else
#define FC_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif
