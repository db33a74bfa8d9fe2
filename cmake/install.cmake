# `cmake --install <build> --prefix P`: the C++ package.
#   P/include/attnlab/attnlab.hpp          the public API's one header (+ session.hpp, error.hpp,
#                                          version.hpp generated from package.json)
#   P/include/attnlab/{core,kernels,...}/  the engine's own headers (they include each other as
#                                          "core/check.hpp", so P/include/attnlab is an include
#                                          folder of the target too); no stability promise
#   P/lib/libattnlab.a                     the engine and the public API
#   P/lib/cmake/attnlab/                   attnlabConfig.cmake, its version file, the targets
#   P/bin/attn                             the command-line tool
# Users: find_package(attnlab CONFIG REQUIRED) and target_link_libraries(app attnlab::attnlab);
# the target brings C++17, both include folders, the instruction-set flags the library was
# compiled with (ATTNLAB_ARCH_FLAGS), threads, and xtensor, xsimd and nlohmann_json through
# their own CMake packages (and MPI's, when the library was built with it). Nothing of the
# tests, benchmarks, bindings or CUDA is installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ATTNLAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)

target_include_directories(attnlab INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/attnlab>)
target_link_libraries(attnlab PUBLIC
  $<INSTALL_INTERFACE:xtensor> $<INSTALL_INTERFACE:xsimd>
  $<INSTALL_INTERFACE:nlohmann_json::nlohmann_json> $<INSTALL_INTERFACE:Threads::Threads>)
target_compile_options(attnlab INTERFACE "$<INSTALL_INTERFACE:${ATTNLAB_ARCH_LIST}>")
if(ATTNLAB_CUDA OR ATTNLAB_SANITIZE)
  # These builds link CUDA or the sanitizer runtimes: not a package for other projects.
  return()
endif()

install(TARGETS attnlab EXPORT attnlabTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET attn)
  install(TARGETS attn RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Headers: the public API, its generated version header and the engine's modules (not the
# benchmarks, cpp/bench).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/cpp/attnlab/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attnlab
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${ATTNLAB_GENERATED}/attnlab/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attnlab)
foreach(module core kernels layers models data train eval io api parallel)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/cpp/${module} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attnlab
    FILES_MATCHING PATTERN "*.hpp")
endforeach()

install(EXPORT attnlabTargets NAMESPACE attnlab:: DESTINATION ${ATTNLAB_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/attnlabConfig.cmake.in
  ${CMAKE_BINARY_DIR}/attnlabConfig.cmake INSTALL_DESTINATION ${ATTNLAB_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# Semver: before 1.0 a minor release may break the API, after it only a major one.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ATTNLAB_COMPATIBILITY SameMinorVersion)
else()
  set(ATTNLAB_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/attnlabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${ATTNLAB_COMPATIBILITY})
install(FILES ${CMAKE_BINARY_DIR}/attnlabConfig.cmake ${CMAKE_BINARY_DIR}/attnlabConfigVersion.cmake
  DESTINATION ${ATTNLAB_CMAKE_DIR})
