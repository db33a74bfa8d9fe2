# Compile flags for the WebAssembly target. xsimd 8.1 has no wasm arch of its own: with
# -msimd128 -msse4.1 it takes its SSE4.1 path and Emscripten lowers the SSE intrinsics to
# WASM SIMD128 (f32x4) instructions; tests/node/wasm-simd.test.mjs checks the binary for them.
# Memory grows on demand up to MAXIMUM_MEMORY; sessions (cpp/api/memory.hpp) refuse a model
# whose estimated size exceeds what is left before anything is allocated.
target_compile_options(attnlab_flags INTERFACE -msimd128 -msse4.1 -fexceptions
                                               $<$<CONFIG:Release>:-O3>)
target_link_options(attnlab_flags INTERFACE -fexceptions -sALLOW_MEMORY_GROWTH=1
                                            -sMAXIMUM_MEMORY=2GB -sINITIAL_MEMORY=32MB)
if(ATTNLAB_WASM_THREADS)
  # The pthread pool is filled before main() runs; its size comes from the loader
  # (Module.threads, see web/core/engine.js), 4 when it gives none. A thread asked for when
  # every Worker is taken fails to start (PTHREAD_POOL_SIZE_STRICT=2: EAGAIN, std::system_error)
  # rather than waiting for a new Worker to load, which needs the event loop of a main thread
  # that is blocked waiting for that very thread: the kernel pool then runs with the workers it
  # has, and thread ranks give a clear error. Growth of a shared memory
  # is fine for wasm code; only JS views must be refreshed, which Embind's copies do.
  target_compile_options(attnlab_flags INTERFACE -pthread)
  target_link_options(attnlab_flags INTERFACE -pthread -Wno-pthreads-mem-growth
                                              "-sPTHREAD_POOL_SIZE=Module.threads||4"
                                              -sPTHREAD_POOL_SIZE_STRICT=2)
endif()
# Emscripten's JS optimizer (run at link time) needs Debian's node modules; the launcher gives
# every link NODE_PATH, so a bare `cmake --build` links as reliably as scripts/build.mjs.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
# The relaxed-SIMD flavour (build/wasm-relaxed): simd::madd (cpp/kernels/simd.hpp) becomes one
# f32x4.relaxed_madd in the GEMM micro-kernel and the fused row kernels. Emscripten 3.1.6's
# clang emits the instruction under its prototype opcode; module.cmake rewrites it after each
# link (wasm-build/relaxed-opcodes.mjs). The page loads this flavour only where
# WebAssembly.validate accepts a relaxed module (web/core/engine.js).
# Only the .cpp files that include kernels/simd.hpp get the relaxed flags (attnlab_simd_sources,
# called once the library's sources are known): every other file compiles exactly as in
# build/wasm, so ccache (scripts/build.mjs) hands those objects over from the plain build. The
# simd.hpp files compile alone (outside the unity batches) in every wasm flavour, so the
# batches of the other files are the same in build/wasm and build/wasm-relaxed.
option(ATTNLAB_WASM_RELAXED "WebAssembly: relaxed-SIMD multiply-add flavour (build/wasm-relaxed)" OFF)
if(ATTNLAB_WASM_RELAXED AND ATTNLAB_WASM_THREADS)
  message(FATAL_ERROR "ATTNLAB_WASM_RELAXED and ATTNLAB_WASM_THREADS are separate flavours")
endif()
function(attnlab_simd_sources)
  # A header that includes simd.hpp would carry madd into files this rule cannot see.
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/*.hpp)
  foreach(h ${headers})
    file(STRINGS ${h} hits REGEX "^#include \"(kernels/)?simd[.]hpp\"")
    if(hits)
      message(FATAL_ERROR "${h} includes simd.hpp: the relaxed-SIMD build gives its flags only to "
                          ".cpp files that include it (wasm-build/flags.cmake)")
    endif()
  endforeach()
  set(simd)
  foreach(src ${ARGN})
    file(STRINGS ${src} hits REGEX "^#include \"(kernels/)?simd[.]hpp\"")
    if(hits)
      list(APPEND simd ${src})
    endif()
  endforeach()
  if(NOT simd)
    message(FATAL_ERROR "no source includes kernels/simd.hpp: nothing would use relaxed SIMD")
  endif()
  set_property(SOURCE ${simd} PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
  if(ATTNLAB_WASM_RELAXED)
    set_property(SOURCE ${simd} APPEND PROPERTY COMPILE_OPTIONS -mrelaxed-simd)
    set_property(SOURCE ${simd} APPEND PROPERTY COMPILE_DEFINITIONS ATTNLAB_RELAXED_SIMD=1)
  endif()
endfunction()
