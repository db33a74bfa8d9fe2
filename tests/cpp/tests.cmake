# The Catch2 (v2) suite: every tests/cpp/test_*.cpp in one executable, registered with CTest
# one test case at a time. The same sources build natively and to WebAssembly; the wasm
# executable runs under node through CMAKE_CROSSCOMPILING_EMULATOR.
# Tags: [kernels] [grad] [torch] [model] [cuda] [dist]; ATTNLAB_TEST_SPEC narrows what CTest
# runs (the sanitizer build skips the slow training tests, the Release build runs them, the CUDA
# build runs [cuda] only).
file(GLOB ATTNLAB_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cpp/*.cpp)
# The [cuda] cases (test_cuda*.cpp) exist only in the CUDA build (-DATTNLAB_CUDA=ON); there they
# report themselves skipped without a GPU. Elsewhere they are not registered at all, so no
# suite counts a case that cannot run as a pass.
if(NOT ATTNLAB_CUDA OR EMSCRIPTEN)
  list(FILTER ATTNLAB_TEST_SOURCES EXCLUDE REGEX "/test_cuda[^/]*[.]cpp$")
else()
  # Outside the unity batches, which then match the Release build's (shared through ccache).
  set(ATTNLAB_CUDA_TEST_SOURCES ${ATTNLAB_TEST_SOURCES})
  list(FILTER ATTNLAB_CUDA_TEST_SOURCES INCLUDE REGEX "/test_cuda[^/]*[.]cpp$")
  set_property(SOURCE ${ATTNLAB_CUDA_TEST_SOURCES} PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
endif()
add_executable(attnlab_tests ${ATTNLAB_TEST_SOURCES})
# Compile time: main.cpp holds Catch2's implementation, the largest file of the build (58 s
# under the sanitizers at -O1, 21 s at -O3): it is compiled at -O1, and in the sanitizer build
# at -O0 without instrumentation (Catch2 is not what the sanitizers check). Per-file options keep
# it out of the unity batches. In the sanitizer build the test files are compiled at -O0 and
# one by one (the engine they call stays at -O1): GCC's instrumentation of Catch2's large test
# functions grows faster than the files, so batching them costs time there instead of saving it.
# The headers most test files include (Catch2, nlohmann/json, the trainer, checkpoints, sessions,
# the kernel table) are parsed there once, into a precompiled header: they were most of each
# file's compile time (main.cpp, which defines Catch2's runner, keeps its own).
if(ATTNLAB_SANITIZE)
  target_compile_options(attnlab_tests PRIVATE -O0)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/main.cpp APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize=all)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/main.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  set_target_properties(attnlab_tests PROPERTIES UNITY_BUILD OFF)
  target_precompile_headers(attnlab_tests PRIVATE <catch2/catch.hpp> <nlohmann/json.hpp> <cmath>
                            <string> <vector> "${CMAKE_SOURCE_DIR}/cpp/train/trainer.hpp"
                            "${CMAKE_SOURCE_DIR}/cpp/io/checkpoint.hpp"
                            "${CMAKE_SOURCE_DIR}/cpp/api/model_session.hpp"
                            "${CMAKE_SOURCE_DIR}/cpp/kernels/kernels.hpp")
else()
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/main.cpp APPEND PROPERTY COMPILE_OPTIONS -O1)
endif()
target_link_libraries(attnlab_tests PRIVATE attnlab)
target_compile_definitions(attnlab_tests PRIVATE
  ATTNLAB_FIXTURES="${CMAKE_SOURCE_DIR}/tests/fixtures")
if(EMSCRIPTEN)
  # Fixtures are read through node's file system (NODERAWFS) so the wasm tests see the repo.
  # .cjs: the repo's package.json declares ES modules, and this output is CommonJS.
  set_target_properties(attnlab_tests PROPERTIES SUFFIX .cjs)
  target_link_options(attnlab_tests PRIVATE -sNODERAWFS=1 -sENVIRONMENT=node -sEXIT_RUNTIME=1)
endif()
set(ATTNLAB_TEST_SPEC "" CACHE STRING "Catch2 test spec for CTest (e.g. ~[model])")
include(${CMAKE_CURRENT_LIST_DIR}/catch.cmake)
# The attn command end to end (native only): flags, outputs, and clean failures on bad input.
if(NOT EMSCRIPTEN AND TARGET attn)
  add_test(NAME attn_cli COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/attn_cli_test.sh $<TARGET_FILE:attn>)
  add_test(NAME attn_cli_rnn COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/rnn_cli_test.sh $<TARGET_FILE:attn>)
  add_test(NAME attn_cli_robust COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/robust_cli_test.sh $<TARGET_FILE:attn>)
  add_test(NAME attn_cli_resume COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/resume_cli_test.sh $<TARGET_FILE:attn>)
  add_test(NAME attn_cli_flags COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/flags_cli_test.sh $<TARGET_FILE:attn>)
endif()
# Data-parallel collectives across processes (native builds with MPI): a small program of its
# own under `mpirun -np 2`, so the Catch2 binary never needs mpirun. LeakSanitizer off there:
# Open MPI keeps allocations until exit.
if(NOT EMSCRIPTEN AND ATTNLAB_WITH_MPI)
  add_executable(attnlab_dist_test ${CMAKE_SOURCE_DIR}/tests/dist/dist_mpi_test.cpp)
  target_link_libraries(attnlab_dist_test PRIVATE attnlab)
  add_test(NAME dist_mpi COMMAND ${CMAKE_SOURCE_DIR}/tests/dist/mpi_test.sh ${MPIEXEC_EXECUTABLE}
                                 $<TARGET_FILE:attnlab_dist_test>)
  set_tests_properties(dist_mpi PROPERTIES TIMEOUT 180 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  # attn train data-parallel end to end: equivalence with one process, resume 2 -> 1, SIGKILL.
  if(TARGET attn)
    add_executable(attnlab_st_tool ${CMAKE_SOURCE_DIR}/tests/dist/st_tool.cpp)
    target_link_libraries(attnlab_st_tool PRIVATE attnlab)
    add_test(NAME attn_dist COMMAND ${CMAKE_SOURCE_DIR}/tests/dist/attn_dist_test.sh
                                    ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:attn>
                                    $<TARGET_FILE:attnlab_st_tool>)
    set_tests_properties(attn_dist PROPERTIES TIMEOUT 180 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endif()
endif()
# No include runs back up the layering core <- kernels <- layers <- models (a text check).
if(NOT EMSCRIPTEN)
  # Model kinds stay in cpp/models/: no raw config reads, no kind literals elsewhere.
  add_test(NAME kind_rules COMMAND ${CMAKE_CURRENT_LIST_DIR}/kind_rules_test.sh ${CMAKE_SOURCE_DIR})
  add_test(NAME include_layering COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR}
                                         -P ${CMAKE_CURRENT_LIST_DIR}/layering.cmake)
endif()
