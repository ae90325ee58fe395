# Tests of the GPU test binary itself that need no GPU (label gpu_harness,
# so CPU-only CI runs them): a planted missing fixture fails its tests with
# MISSING and the binary does not crash (missing_fixture.cmake).
if(TARGET fc_gpu_tests)
  add_test(NAME gpu/missing_fixture
           COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:fc_gpu_tests> -DSRC=${PROJECT_SOURCE_DIR}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/gpu-missing-fixture
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/gpu/missing_fixture.cmake)
  set_tests_properties(gpu/missing_fixture PROPERTIES LABELS "unit;gpu_harness" TIMEOUT 300)
endif()
