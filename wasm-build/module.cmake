# The Embind module, linked twice from the same objects:
#   attnlab.mjs (+ .wasm)  ES module for the browser and its Web Worker (EXPORT_ES6)
#   attnlab.cjs (+ .wasm)  CommonJS MODULARIZE flavour for node tests and benchmarks
file(GLOB ATTNLAB_BIND_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/bindings/*.cpp)
set(ATTNLAB_LINK_COMMON --bind -sMODULARIZE=1 -sEXPORT_NAME=createAttnlabModule
    -sTOTAL_STACK=1MB)

add_executable(attnlab_web ${ATTNLAB_BIND_SOURCES})
target_link_libraries(attnlab_web PRIVATE attnlab)
set_target_properties(attnlab_web PROPERTIES OUTPUT_NAME attnlab SUFFIX .mjs)
target_link_options(attnlab_web PRIVATE ${ATTNLAB_LINK_COMMON} -sEXPORT_ES6=1
                    -sENVIRONMENT=web,worker)

add_executable(attnlab_node ${ATTNLAB_BIND_SOURCES})
target_link_libraries(attnlab_node PRIVATE attnlab)
set_target_properties(attnlab_node PROPERTIES OUTPUT_NAME attnlab-node SUFFIX .cjs)
target_link_options(attnlab_node PRIVATE ${ATTNLAB_LINK_COMMON} -sENVIRONMENT=node)
