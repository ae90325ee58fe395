// Harness: the importer for nvFuser's printed IR (importFusion with the format
// forced). An import that succeeds and verifies must survive the writer
// round trip, as `fusecheck import` writes it.
#include "fuzz_import.h"

FC_FUZZ_TARGET(import_ir) {
  return fc::fuzz::importOne("import_ir", fc::ImportFormat::NvfuserIr, data, size);
}
