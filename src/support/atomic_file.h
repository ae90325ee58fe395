// Atomic file writes: write to a temporary file beside the target, fsync,
// rename over it. A failure at any point leaves the old file intact.
#pragma once

#include <string>
#include <string_view>

namespace fc {

// Returns an empty string on success, else a human-readable reason.
std::string writeFileAtomic(const std::string& path, std::string_view content);

// Test hook: when set, writeFileAtomic fails after writing the temporary
// file and before the rename (simulating a crash mid-write).
void setAtomicWriteFailureInjection(bool fail);

}  // namespace fc
