// Harness: the importer for an nvFuser Python repro script (importFusion with the format
// forced). An import that succeeds and verifies must survive the writer
// round trip, as `fusecheck import` writes it.
#include "fuzz_import.h"

FC_FUZZ_TARGET(import_python) {
  return fc::fuzz::importOne("import_python", fc::ImportFormat::NvfuserPython, data, size);
}
