# The Python tests (tests/python, pytest under FC_PYTHON = /usr/bin/python3) and the differential
# runner of the torch oracle (python/fusecheck/differential.py), labelled "python".
#
#   python/pytest        the package's API, the pytest plugin, tensor files through the CLI, the
#                        oracle, and the differential runner on every fixture fusion and 150 fuzz
#                        fusions. Skipped tests print their reason (-rs).
#   python/differential  the differential runner on 10,000 fuzz fusions (200 in sanitizer builds;
#                        label "differential"; about 7 minutes on two cores: docs/numerics.md).
#   python/install       `cmake --install` into a scratch prefix, then import the package there.
#
# Never silent: without FC_PYTHON or pytest, a test prints why and reports as skipped (exit 77);
# without the compiled module, the tests that need it are skipped with the reason, the rest run.
if(NOT EXISTS ${FC_PYTHON})
  add_test(NAME python/pytest COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: no ${FC_PYTHON}")
  set_tests_properties(python/pytest PROPERTIES LABELS python SKIP_REGULAR_EXPRESSION "SKIPPED")
  return()
endif()
if(NOT FC_HAVE_PYTHON)
  if(NOT fc_python_why)
    set(fc_python_why " (pybind11-dev or python3-dev missing, or FC_WITH_PYTHON=OFF)")
  endif()
  message(STATUS "fusecheck: the Python module is not built${fc_python_why}; "
                 "python/pytest skips the tests that need it, with the reason")
endif()
set(fc_py_env "PYTHONPATH=${PROJECT_BINARY_DIR}/python:${PROJECT_SOURCE_DIR}/python"
              "FUSECHECK_CLI=$<TARGET_FILE:fusecheck-cli>" "PYTHONDONTWRITEBYTECODE=1")
# A sanitizer build leaves out pytest's 150 fuzz fusions: python/differential runs 200 there.
set(fc_pytest_args)
if(FC_SANITIZE)
  set(fc_pytest_args -k "not test_differential_on_fuzz_fusions")
endif()
add_test(NAME python/pytest COMMAND ${FC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.py ${fc_pytest_args})
set_tests_properties(python/pytest PROPERTIES LABELS python TIMEOUT 600 SKIP_RETURN_CODE 77
                                              ENVIRONMENT "${fc_py_env}")
# A sanitized CLI runs several times slower: the sanitizer builds check 200.
if(FC_SANITIZE)
  set(fc_diff_default 200)
else()
  set(fc_diff_default 10000)
endif()
set(FC_DIFFERENTIAL_FUZZ ${fc_diff_default} CACHE STRING "Fuzz fusions the CTest test python/differential checks")
add_test(NAME python/differential
         COMMAND ${FC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/run_differential.py
                 --cli $<TARGET_FILE:fusecheck-cli> --fuzz ${FC_DIFFERENTIAL_FUZZ} --fuzz-seed 100000 --quiet
                 --jobs 2 --out ${PROJECT_BINARY_DIR}/differential-repros)
set_tests_properties(python/differential PROPERTIES LABELS "python;differential" TIMEOUT 1200
                                                    SKIP_RETURN_CODE 77 ENVIRONMENT "${fc_py_env}")
if(FC_HAVE_PYTHON)
  add_test(NAME python/install
           COMMAND ${CMAKE_COMMAND} -DFC_BINARY_DIR=${PROJECT_BINARY_DIR} -DFC_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DFC_WORK_DIR=${PROJECT_BINARY_DIR}/python-install-test -DFC_PYTHON=${FC_PYTHON}
                   -DFC_PY_DIR=${FC_PYTHON_INSTALL_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/python/install_check.cmake)
  set_tests_properties(python/install PROPERTIES LABELS "python;install" TIMEOUT 300)
endif()
