# The Embind module, linked twice from the same objects:
#   attnlab.mjs (+ .wasm)       ES module for the browser and its Web Worker (EXPORT_ES6)
#   attnlab-node.cjs (+ .wasm)  CommonJS MODULARIZE flavour for node tests and benchmarks
# With -DATTNLAB_WASM_THREADS=ON (build/wasm-mt) the names carry "-mt" (attnlab-mt.mjs,
# attnlab-mt-node.cjs) and each comes with its pthread worker script (*.worker.js).
# With -DATTNLAB_WASM_RELAXED=ON (build/wasm-relaxed) they are attnlab-relaxed.mjs and
# attnlab-relaxed-node.cjs, and each .wasm gets its relaxed-SIMD opcodes rewritten after the link.
file(GLOB ATTNLAB_BIND_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/bindings/*.cpp)
# errors.js turns the errors that bindings record into JS exceptions once a call has returned
# (cpp/bindings/convert.hpp).
set(ATTNLAB_ERRORS_JS ${CMAKE_SOURCE_DIR}/wasm-build/errors.js)
set(ATTNLAB_LINK_COMMON --bind -sMODULARIZE=1 -sEXPORT_NAME=createAttnlabModule
    -sTOTAL_STACK=1MB --post-js ${ATTNLAB_ERRORS_JS})
if(ATTNLAB_WASM_THREADS)
  set(ATTNLAB_MODULE_NAME attnlab-mt)
  # node loads the pthread scripts (*.worker.js, CommonJS) by path; the repository's package.json
  # declares ES modules, so the build folder declares its own type.
  file(WRITE ${CMAKE_BINARY_DIR}/package.json "{ \"type\": \"commonjs\" }\n")
elseif(ATTNLAB_WASM_RELAXED)
  set(ATTNLAB_MODULE_NAME attnlab-relaxed)
else()
  set(ATTNLAB_MODULE_NAME attnlab)
endif()

# The bindings compile once; both flavours link the same objects.
add_library(attnlab_bind OBJECT ${ATTNLAB_BIND_SOURCES})
target_link_libraries(attnlab_bind PRIVATE attnlab_benchmarks attnlab)

add_executable(attnlab_web $<TARGET_OBJECTS:attnlab_bind>)
target_link_libraries(attnlab_web PRIVATE attnlab_benchmarks attnlab)
set_target_properties(attnlab_web PROPERTIES OUTPUT_NAME ${ATTNLAB_MODULE_NAME} SUFFIX .mjs)
# DYNAMIC_EXECUTION=0: Embind's invokers are closures, not code made with new Function, so a page
# whose Content-Security-Policy allows no 'unsafe-eval' (script-src 'self' 'wasm-unsafe-eval')
# runs the engine (tests/browser/csp.test.mjs).
target_link_options(attnlab_web PRIVATE ${ATTNLAB_LINK_COMMON} -sEXPORT_ES6=1
                    -sENVIRONMENT=web,worker -sDYNAMIC_EXECUTION=0)

add_executable(attnlab_node $<TARGET_OBJECTS:attnlab_bind>)
target_link_libraries(attnlab_node PRIVATE attnlab_benchmarks attnlab)
set_target_properties(attnlab_node PROPERTIES OUTPUT_NAME ${ATTNLAB_MODULE_NAME}-node SUFFIX .cjs)
target_link_options(attnlab_node PRIVATE ${ATTNLAB_LINK_COMMON} -sENVIRONMENT=node)
set_target_properties(attnlab_web attnlab_node PROPERTIES LINK_DEPENDS ${ATTNLAB_ERRORS_JS})

if(ATTNLAB_WASM_RELAXED)
  add_custom_command(TARGET attnlab_web POST_BUILD
    COMMAND node ${CMAKE_SOURCE_DIR}/wasm-build/relaxed-opcodes.mjs ${CMAKE_BINARY_DIR}/${ATTNLAB_MODULE_NAME}.wasm
    VERBATIM)
  add_custom_command(TARGET attnlab_node POST_BUILD
    COMMAND node ${CMAKE_SOURCE_DIR}/wasm-build/relaxed-opcodes.mjs ${CMAKE_BINARY_DIR}/${ATTNLAB_MODULE_NAME}-node.wasm
    VERBATIM)
endif()
