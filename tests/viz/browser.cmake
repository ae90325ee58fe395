# Browser test of the HTML report: headless Chromium
# loads the seed's report; the script checks the DOM (pipeline steps, a
# computed diff, the FC0301 diagnostic, the embedded graph, the inline
# script ran) and keeps a screenshot in the build tree
# (viz-browser/seed-report.png). Exit 77 (no chromium) reports as skipped.
# Include from tests/CMakeLists.txt:  include(${CMAKE_CURRENT_SOURCE_DIR}/viz/browser.cmake)
find_program(FC_BROWSER_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT FC_BROWSER_PYTHON3)
  find_package(Python3 COMPONENTS Interpreter)
  set(FC_BROWSER_PYTHON3 ${Python3_EXECUTABLE})
endif()
if(FC_BROWSER_PYTHON3)
  add_test(NAME viz/browser_report
           COMMAND ${FC_BROWSER_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/viz/browser_test.py
                   --cli $<TARGET_FILE:fusecheck-cli>
                   --repro ${PROJECT_SOURCE_DIR}/fixtures/seed/matmul_allreduce_bias.json
                   --workdir ${CMAKE_CURRENT_BINARY_DIR}/viz-browser)
  set_tests_properties(viz/browser_report PROPERTIES LABELS "viz;browser" SKIP_RETURN_CODE 77 TIMEOUT 300)
  # The verdict in a browser: report and graph of the seed (FC0301), an edge hazard (FC0302) and an
  # unevaluable reshape (FC0303): verdict in the titles, every diagnostic present, no horizontal
  # overflow at 1280 px. `--images docs/images` remakes the checked-in screenshots.
  add_test(NAME viz/browser_verdict
           COMMAND ${FC_BROWSER_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/viz/browser_verdict_test.py
                   --cli $<TARGET_FILE:fusecheck-cli> --source ${PROJECT_SOURCE_DIR}
                   --workdir ${CMAKE_CURRENT_BINARY_DIR}/viz-browser-verdict)
  # Label sanitizer-slow: what it checks is the browser's layout; viz/browser_report and the viz
  # fixtures run the CLI's HTML and graph paths under the sanitizers.
  set_tests_properties(viz/browser_verdict PROPERTIES LABELS "viz;browser;sanitizer-slow" SKIP_RETURN_CODE 77
                                                      TIMEOUT 600)
else()
  message(STATUS "fusecheck: no python3 found; the browser test is not added")
endif()
