# Register each Catch2 test case with CTest (Catch2 v2's catch_discover_tests; under
# Emscripten it lists and runs the cases through CMAKE_CROSSCOMPILING_EMULATOR = node).
list(APPEND CMAKE_MODULE_PATH /usr/lib/cmake/Catch2)
include(Catch)
if(ATTNLAB_TEST_SPEC)
  catch_discover_tests(attnlab_tests TEST_SPEC "${ATTNLAB_TEST_SPEC}")
else()
  catch_discover_tests(attnlab_tests)
endif()
