// Harness: the importer for a segmented-fusion dump (importFusion with the format
// forced). An import that succeeds and verifies must survive the writer
// round trip, as `fusecheck import` writes it.
#include "fuzz_import.h"

FC_FUZZ_TARGET(import_segments) {
  return fc::fuzz::importOne("import_segments", fc::ImportFormat::NvfuserSegments, data, size);
}
