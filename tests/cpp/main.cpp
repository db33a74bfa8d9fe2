// Catch2 (v2) entry point for the native and the WebAssembly test executables.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
