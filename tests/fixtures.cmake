# One CTest test per fixture sidecar (fixtures/<folder>/X.expect.json beside
# its repro X.json, or X.py / X.txt in fixtures/invalid-import/), named
# fixture/<folder>/X and labelled "fixture;<folder>"; the glob is recursive, so
# new folders need no edit here. The runner (tests/run_fixture.py,
# docs/fixtures.md) validates the sidecar against
# schemas/fixture-expect.schema.json, runs the CLI as a user would and checks
# verdicts, diagnostics (both ways, with their words) and output. Exit 77 (an
# expectation this CLI cannot run yet, e.g. a named nvFuser point) reports as
# skipped, never as passed; FC_FIXTURE_STRICT=ON makes it fail instead.
#
# Two more tests with the label fixture: fixture/runner_selftest (planted
# failures the runner must report, and python3-jsonschema agreeing with the
# runner's validator on every sidecar), run by the system /usr/bin/python3,
# which has Debian's python3-jsonschema (exit 77 without it: skipped).
option(FC_FIXTURE_STRICT "Fixture expectations the CLI cannot run yet fail instead of being skipped" OFF)
file(GLOB_RECURSE fc_fixture_expectations CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/fixtures/*.expect.json)
find_program(FC_FIXTURE_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT FC_FIXTURE_PYTHON3)
  find_package(Python3 COMPONENTS Interpreter)
  set(FC_FIXTURE_PYTHON3 ${Python3_EXECUTABLE})
endif()
if(NOT FC_FIXTURE_PYTHON3)
  message(STATUS "fusecheck: no python3 found; the fixture tests are not added")
  return()
endif()

set(fc_fixture_env "")
if(FC_SANITIZE)
  # Sidecars may bound CPU time and memory (max_seconds, max_rss_mb); the
  # runner scales them for sanitizer builds (tests/run_fixture.py).
  list(APPEND fc_fixture_env "FC_FIXTURE_SANITIZED=1")
endif()
if(FC_FIXTURE_STRICT)
  list(APPEND fc_fixture_env "FC_FIXTURE_STRICT=1")
endif()

foreach(expect ${fc_fixture_expectations})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/fixtures ${expect})
  get_filename_component(folder ${rel} DIRECTORY)
  string(REGEX REPLACE "\\.expect\\.json$" "" name ${rel})
  add_test(NAME fixture/${name}
           COMMAND ${FC_FIXTURE_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/run_fixture.py
                   --cli $<TARGET_FILE:fusecheck-cli> ${expect})
  set_tests_properties(fixture/${name} PROPERTIES
    LABELS "fixture;${folder}" TIMEOUT 60 SKIP_RETURN_CODE 77)
  if(fc_fixture_env)
    set_tests_properties(fixture/${name} PROPERTIES ENVIRONMENT "${fc_fixture_env}")
  endif()
endforeach()

add_test(NAME fixture/runner_selftest
         COMMAND ${FC_FIXTURE_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/fixture_runner_test.py
                 --cli $<TARGET_FILE:fusecheck-cli>)
set_tests_properties(fixture/runner_selftest PROPERTIES
  LABELS "fixture;runner" TIMEOUT 120 SKIP_RETURN_CODE 77)
