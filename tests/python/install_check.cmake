# CTest driver for python/install (cmake -P): `cmake --install` the build tree into a scratch
# prefix, then import the installed package with FC_PYTHON from outside the trees and check the seed.
# Inputs (-D): FC_BINARY_DIR, FC_SOURCE_DIR, FC_WORK_DIR (wiped), FC_PYTHON, FC_PY_DIR (relative).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${FC_WORK_DIR})
file(MAKE_DIRECTORY ${FC_WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${FC_BINARY_DIR} --prefix ${FC_WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python install test: cmake --install failed (${rc})\n${err}")
endif()
set(pkg ${FC_WORK_DIR}/prefix/${FC_PY_DIR}/fusecheck)
foreach(f __init__.py _core.pyi py.typed pytest_plugin.py tensors.py oracle.py differential.py)
  if(NOT EXISTS ${pkg}/${f})
    message(FATAL_ERROR "python install test: ${pkg}/${f} was not installed")
  endif()
endforeach()
file(GLOB so ${pkg}/_core*.so)
if(NOT so)
  message(FATAL_ERROR "python install test: no ${pkg}/_core*.so")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${FC_WORK_DIR}/prefix/${FC_PY_DIR} PYTHONDONTWRITEBYTECODE=1
          ${FC_PYTHON} -c "import fusecheck, sys; assert fusecheck.__file__.startswith(sys.argv[1]), fusecheck.__file__; v = fusecheck.load(sys.argv[2]).check(nvfuser='2024-06'); assert v.diagnostics[0].code == 'FC0301'; print('ok', fusecheck.__file__)"
          ${FC_WORK_DIR}/prefix ${FC_SOURCE_DIR}/fixtures/seed/matmul_allreduce_bias.json
  WORKING_DIRECTORY ${FC_WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python install test: the installed package does not work (${rc})\n${out}\n${err}")
endif()
message(STATUS "${out}")
