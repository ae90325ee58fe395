# Schema check: every valid fixture (fixtures/valid, fixtures/seed) against
# schemas/fusion.schema.json with an independent validator (Debian's
# python3-jsonschema, run by the system /usr/bin/python3), plus agreement of
# the schema's enums with src/ir/ops.def and src/ir/types.h.
# Include from tests/CMakeLists.txt:  include(${CMAKE_CURRENT_SOURCE_DIR}/io/schema.cmake)
# Exit 3 from the script (jsonschema module missing) reports as skipped.
find_program(FC_SCHEMA_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT FC_SCHEMA_PYTHON3)
  find_package(Python3 COMPONENTS Interpreter)
  set(FC_SCHEMA_PYTHON3 ${Python3_EXECUTABLE})
endif()
if(FC_SCHEMA_PYTHON3)
  add_test(NAME schema/fixtures
           COMMAND ${FC_SCHEMA_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/validate_schema.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(schema/fixtures PROPERTIES LABELS "schema;io" SKIP_RETURN_CODE 3 TIMEOUT 120)
else()
  message(STATUS "fusecheck: no python3 found; the schema test is not added")
endif()

# The JSON verdict of `check` against schemas/verdict.schema.json.
if(FC_SCHEMA_PYTHON3 AND TARGET fusecheck-cli)
  add_test(NAME schema/verdict
           COMMAND ${FC_SCHEMA_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/validate_verdict_schema.py ${PROJECT_SOURCE_DIR}
                   $<TARGET_FILE:fusecheck-cli>)
  set_tests_properties(schema/verdict PROPERTIES LABELS "schema;driver" SKIP_RETURN_CODE 3 TIMEOUT 120)
endif()
