# Tests of the command line as users and CI meet it, run with the system
# /usr/bin/python3 (Debian's python3-jsonschema):
#   cli/test_agreement   `fusecheck test fixtures/` (what CI runs for the fixtures) and the project's
#                        own runner give every sidecar the same verdict; the JUnit XML parses with
#                        xml.etree; `test --update` leaves every sidecar unchanged
#   cli/sarif_structure  SARIF of every command that reports diagnostics has what code scanning needs
#   cli/completion_man   bash / zsh completion and man pages generated from the CLI's definition
#   cli/sarif_schema     ... and validates against the OASIS SARIF 2.1.0 schema, read from
#                        FC_SARIF_SCHEMA (default ../shared/schemas/ beside the source tree; the
#                        schema is data and is not copied into the repository). Without the file it
#                        reports itself skipped, loudly.
find_program(FC_CLI_TEST_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT FC_CLI_TEST_PYTHON3)
  message(STATUS "fusecheck: no /usr/bin/python3; the cli/ tests are not added")
  return()
endif()
set(FC_SARIF_SCHEMA "${PROJECT_SOURCE_DIR}/../shared/schemas/sarif-schema-2.1.0.json"
    CACHE FILEPATH "The OASIS SARIF 2.1.0 JSON schema the SARIF tests validate against (data, not copied)")
if(NOT EXISTS "${FC_SARIF_SCHEMA}")
  message(STATUS "fusecheck: ${FC_SARIF_SCHEMA} not found: cli/sarif_schema will report itself SKIPPED")
endif()

add_test(NAME cli/test_agreement
         COMMAND ${FC_CLI_TEST_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_agreement.py
                 --cli $<TARGET_FILE:fusecheck-cli> --fixtures ${PROJECT_SOURCE_DIR}/fixtures
                 --workdir ${CMAKE_CURRENT_BINARY_DIR}/cli-agreement)
# Label sanitizer-slow: ~1,800 CLI runs that compare outputs, which the default build checks; the
# fixture/* tests run the same CLI paths under the sanitizers (tools/dev asan leaves it out).
set_tests_properties(cli/test_agreement PROPERTIES LABELS "cli;fixture;sanitizer-slow" TIMEOUT 600)

add_test(NAME cli/sarif_structure
         COMMAND ${FC_CLI_TEST_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/sarif_test.py --structure-only
                 --cli $<TARGET_FILE:fusecheck-cli> --source ${PROJECT_SOURCE_DIR}
                 --workdir ${CMAKE_CURRENT_BINARY_DIR}/cli-sarif)
# Label sanitizer-slow: every command once per format, about 40 s under ASan; the SARIF writer's
# unit tests (fc_driver_tests) run under the sanitizers.
set_tests_properties(cli/sarif_structure PROPERTIES LABELS "cli;sarif;sanitizer-slow" TIMEOUT 300)

add_test(NAME cli/sarif_schema
         COMMAND ${FC_CLI_TEST_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/sarif_test.py
                 --schema ${FC_SARIF_SCHEMA}
                 --cli $<TARGET_FILE:fusecheck-cli> --source ${PROJECT_SOURCE_DIR}
                 --workdir ${CMAKE_CURRENT_BINARY_DIR}/cli-sarif-schema)
set_tests_properties(cli/sarif_schema PROPERTIES LABELS "cli;sarif" TIMEOUT 300 SKIP_RETURN_CODE 77)

add_test(NAME cli/completion_man
         COMMAND ${FC_CLI_TEST_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/completion_test.py
                 --cli $<TARGET_FILE:fusecheck-cli> --workdir ${CMAKE_CURRENT_BINARY_DIR}/cli-completion)
set_tests_properties(cli/completion_man PROPERTIES LABELS "cli" TIMEOUT 120)
