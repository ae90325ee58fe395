# CTest driver for install/consumer (cmake -P): installs the build tree into
# a fresh prefix, checks the installed layout, then configures, builds and
# runs tests/install/ against that prefix alone.
#
# Inputs (-D): FC_BINARY_DIR (the build tree to install), FC_SOURCE_DIR,
# FC_WORK_DIR (scratch, wiped), FC_GENERATOR, FC_CXX_COMPILER, FC_BUILD_TYPE,
# FC_LAUNCHER (optional: ccache for the consumer's one file).
cmake_minimum_required(VERSION 3.25)

foreach(v FC_BINARY_DIR FC_SOURCE_DIR FC_WORK_DIR FC_GENERATOR FC_CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()

set(prefix ${FC_WORK_DIR}/prefix)
set(build ${FC_WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${FC_WORK_DIR})
file(MAKE_DIRECTORY ${FC_WORK_DIR})

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: step '${name}' failed (${rc})\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# 1. install
run_step(install ${CMAKE_COMMAND} --install ${FC_BINARY_DIR} --prefix ${prefix})

# 2. the layout the README and docs/building.md promise
set(expected
  bin/fusecheck
  include/fusecheck/ir/fusion.h
  include/fusecheck/ir/ops.def
  include/fusecheck/diag/codes.def
  include/fusecheck/io/reader.h
  share/bash-completion/completions/fusecheck
  share/zsh/vendor-completions/_fusecheck
  share/man/man1/fusecheck.1
  share/man/man1/fusecheck-check.1
  share/man/man1/fusecheck-test.1)
file(GLOB schemas RELATIVE ${FC_SOURCE_DIR}/schemas ${FC_SOURCE_DIR}/schemas/*.json)
foreach(s ${schemas})
  list(APPEND expected share/fusecheck/schemas/${s})
endforeach()
foreach(lib fc_support fc_diag fc_ir fc_io fc_analysis fc_passes fc_pipeline fc_rewrite fc_exec fc_viz
            fc_reduce fc_difftest fc_driver)
  list(APPEND expected lib/lib${lib}.a)
endforeach()
foreach(f fusecheckConfig.cmake fusecheckConfigVersion.cmake fusecheckTargets.cmake)
  list(APPEND expected lib/cmake/fusecheck/${f})
endforeach()
foreach(path ${expected})
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "install test: ${prefix}/${path} was not installed")
  endif()
endforeach()

# The exported targets must not point back into the source or build tree
# (a relocated or packaged install would break).
file(GLOB target_files ${prefix}/lib/cmake/fusecheck/*.cmake)
foreach(f ${target_files})
  file(READ ${f} text)
  foreach(tree ${FC_SOURCE_DIR} ${FC_BINARY_DIR})
    string(FIND "${text}" "${tree}/" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "install test: ${f} refers to ${tree}")
    endif()
  endforeach()
endforeach()

# 3. configure + build the consumer against the prefix only
set(configure_args -S ${FC_SOURCE_DIR}/tests/install -B ${build} -G ${FC_GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${FC_CXX_COMPILER}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(FC_BUILD_TYPE)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${FC_BUILD_TYPE})
endif()
if(FC_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${FC_LAUNCHER})
endif()
run_step(configure ${CMAKE_COMMAND} ${configure_args})
run_step(build ${CMAKE_COMMAND} --build ${build})

# 4. run it: the built fusion prints as nvFuser math and survives a round trip
run_step(run ${build}/consumer)
message("${step_output}")
foreach(want "T1_g[ iS2{i0}, iS3{i1} ]" "= -T0_g[" "round-trip: ok (2 tensors, 1 exprs)")
  string(FIND "${step_output}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install test: consumer output lacks '${want}'")
  endif()
endforeach()
