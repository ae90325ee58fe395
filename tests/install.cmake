# CTest test install/consumer (label "install"): `cmake --install` this build
# into a scratch prefix, check the layout, then build and run the consumer
# project tests/install/ against it via find_package(fusecheck).
# Include from tests/CMakeLists.txt; needs the whole build (all installed targets).
add_test(NAME install/consumer
         COMMAND ${CMAKE_COMMAND}
                 -DFC_BINARY_DIR=${PROJECT_BINARY_DIR}
                 -DFC_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DFC_WORK_DIR=${PROJECT_BINARY_DIR}/install-test
                 -DFC_GENERATOR=${CMAKE_GENERATOR}
                 -DFC_CXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DFC_BUILD_TYPE=${CMAKE_BUILD_TYPE}
                 -DFC_LAUNCHER=${CCACHE_PROGRAM}
                 -P ${PROJECT_SOURCE_DIR}/tests/install/run.cmake)
set_tests_properties(install/consumer PROPERTIES LABELS "install" TIMEOUT 600
                     RESOURCE_LOCK fc_install_prefix)
