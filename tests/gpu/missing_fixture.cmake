# CTest test gpu/missing_fixture (tests/gpu/gpu_harness.cmake): runs the
# fixture-reading tests of fc_gpu_tests against a copy of fixtures/ whose
# seed/ folder is planted missing (FC_FIXTURES_DIR), and checks that the
# binary ends normally with exit status 1 (its tests failed), says MISSING
# for the planted file, never calls it empty, and does not die of a signal.
# Without a GPU only GpuFixtures.* runs (the others skip); on a GPU machine
# the GPU tests that read the seed fail the same way.
#
#   cmake -DBIN=fc_gpu_tests -DSRC=<source root> -DWORK=<scratch> -P missing_fixture.cmake
foreach(v BIN SRC WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "missing_fixture.cmake needs -D${v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(COPY "${SRC}/fixtures" DESTINATION "${WORK}")
file(REMOVE_RECURSE "${WORK}/fixtures/seed")  # the planted missing fixture
set(filter "GpuFixtures.*:GpuBackend.Seed*:GpuBackend.Planted*:GpuBackend.Collectives*:GpuReference.Seed*:GpuKernels.Seed*")
execute_process(COMMAND ${CMAKE_COMMAND} -E env "FC_FIXTURES_DIR=${WORK}/fixtures" "${BIN}" "--gtest_filter=${filter}"
                        --gtest_color=no
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "expected exit status 1 (failed tests, no crash), got '${rc}':\n${all}")
endif()
if(NOT all MATCHES "MISSING: fixture [^\n]*/seed/matmul_allreduce_bias.json")
  message(FATAL_ERROR "the planted missing fixture is not reported as MISSING:\n${all}")
endif()
if(all MATCHES "is empty|file is empty")
  message(FATAL_ERROR "a missing fixture is reported as empty:\n${all}")
endif()
if(NOT all MATCHES "FAILED  \\] GpuFixtures.TheFixturesTheGpuTestsReadAreFound")
  message(FATAL_ERROR "GpuFixtures.TheFixturesTheGpuTestsReadAreFound did not fail:\n${all}")
endif()
message(STATUS "fc_gpu_tests with a planted missing fixture: exit 1, MISSING reported, no crash")
