// Harness: the importer for nvFuser's C++ gtest repros (importFusion with the format forced). An
// import that succeeds and verifies must survive the writer round trip, as `fusecheck import`
// writes it.
#include "fuzz_import.h"

FC_FUZZ_TARGET(import_cpp_test) {
  return fc::fuzz::importOne("import_cpp_test", fc::ImportFormat::NvfuserCppTest, data, size);
}
