# One CTest test per fixture (fixtures/<folder>/X.json, or X.py / X.txt in
# fixtures/invalid-import/, with a sidecar X.expect.json), labelled
# "fixture;<folder>"; the glob is recursive, so new folders need no edit
# here. The runner executes the CLI as a user would and compares diagnostics
# both ways against the sidecar.
file(GLOB_RECURSE fc_fixture_expectations CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/fixtures/*.expect.json)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  foreach(expect ${fc_fixture_expectations})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/fixtures ${expect})
    get_filename_component(folder ${rel} DIRECTORY)
    string(REGEX REPLACE "\\.expect\\.json$" "" name ${rel})
    add_test(NAME fixture/${name}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/run_fixture.py
                     --cli $<TARGET_FILE:fusecheck-cli> ${expect})
    set_tests_properties(fixture/${name} PROPERTIES LABELS "fixture;${folder}" TIMEOUT 60)
    # Sidecars may bound CPU time and memory (max_seconds, max_rss_mb); the
    # runner scales them for sanitizer builds (tests/run_fixture.py).
    if(FC_SANITIZE)
      set_tests_properties(fixture/${name} PROPERTIES ENVIRONMENT "FC_FIXTURE_SANITIZED=1")
    endif()
  endforeach()
endif()
