// Harness: the importer for GitHub pastes (markdown repaired, prose skipped, the printed IR, dump,
// Python or C++ inside read by its importer). An import that succeeds and verifies must survive
// the writer round trip, as `fusecheck import` writes it.
#include "fuzz_import.h"

FC_FUZZ_TARGET(import_paste) {
  return fc::fuzz::importOne("import_paste", fc::ImportFormat::Paste, data, size);
}
