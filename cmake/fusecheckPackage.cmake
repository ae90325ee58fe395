# Install rules and the exported CMake package `fusecheck` (included from the
# top-level CMakeLists.txt after src/ and tools/ exist).
#
# `cmake --install <build> --prefix P` installs:
#   P/bin/fusecheck                         the CLI
#   P/lib/libfc_*.a                         the static layer libraries
#   P/include/fusecheck/<layer>/*.h|*.def   their headers
#   P/lib/cmake/fusecheck/                  fusecheckConfig.cmake, version file, targets
#   P/share/fusecheck/schemas/              the JSON Schemas
# A consumer does `find_package(fusecheck REQUIRED)` and links
# `fusecheck::fusecheck` (tests/install/ is such a consumer, run by CTest).
#
# Static archives carry no dependency information, so every library a layer
# links PRIVATEly must reach the consumer's link line. In the build tree those
# deps are wrapped in BUILD_INTERFACE (their headers stay private); here each
# one is re-added as a link-only INSTALL_INTERFACE dependency, and
# fusecheckConfig.cmake finds it with find_dependency. Header-only deps used in
# .cpp files only (nlohmann/json, CLI11) are not needed by consumers.

include(CMakePackageConfigHelpers)

# fc_io: simdjson (the reader). simdjson is a shared library on Debian.
target_link_libraries(fc_io INTERFACE "$<INSTALL_INTERFACE:$<LINK_ONLY:simdjson::simdjson>>")
# fc_exec with CUDA: its PRIVATE CUDA::* targets are exported as LINK_ONLY by
# CMake itself; the config finds CUDAToolkit for them. fc_viz: Graphviz is
# exported by library name (cgraph, gvc) in src/CMakeLists.txt.

# Sanitized archives need the sanitizer runtimes in whatever links them.
if(FC_SANITIZE)
  target_link_options(fc_support INTERFACE "$<INSTALL_INTERFACE:-fsanitize=address,undefined>")
endif()

set(FC_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/fusecheck)
set(FC_SCHEMA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/fusecheck/schemas)
install(EXPORT fusecheckTargets NAMESPACE fusecheck:: DESTINATION ${FC_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fusecheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/fusecheckConfig.cmake
  INSTALL_DESTINATION ${FC_CMAKE_INSTALL_DIR}
  PATH_VARS FC_SCHEMA_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fusecheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fusecheckConfig.cmake
              ${PROJECT_BINARY_DIR}/fusecheckConfigVersion.cmake
        DESTINATION ${FC_CMAKE_INSTALL_DIR})
# schemas/ holds the repro format's JSON Schemas (a fresh clone lacks the folder until one is committed).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${FC_SCHEMA_INSTALL_DIR}
        OPTIONAL FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)

# `cmake --build <build> --target package` makes a relocatable tarball of the same tree.
set(CPACK_PACKAGE_NAME fusecheck)
set(CPACK_PACKAGE_VENDOR "fusecheck")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Replay, diagnose and repair nvFuser-style fusions")
set(CPACK_GENERATOR TGZ)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_PACKAGE_FILE_NAME "fusecheck-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
include(CPack)
