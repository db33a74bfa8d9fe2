# No #include runs back up the engine's layering (README, "Layout"), from the bottom:
#   core <- kernels <- layers <- models <- io <- data <- eval <- train <- parallel <- bench <- api
# A file in one of these folders may include its own folder and the folders below it only (the
# front ends above them, cli/, bindings/ and the public API's sources in attnlab/, may include
# any). attnlab/error.hpp, the error type core shares with the public API, is a leaf header
# anyone may include. The public API's headers (attnlab/*.hpp, installed) include attnlab/ headers
# only, so that an installed copy stands on its own.
# Run: cmake -DROOT=<repository> -P tests/cpp/layering.cmake
cmake_minimum_required(VERSION 3.16)
set(order core kernels layers models io data eval train parallel bench api)
set(below "")
set(bad "")
foreach(dir ${order})
  list(APPEND below ${dir})
  file(GLOB files ${ROOT}/cpp/${dir}/*.hpp ${ROOT}/cpp/${dir}/*.cpp ${ROOT}/cpp/${dir}/*.cu
       ${ROOT}/cpp/${dir}/*.cuh)
  foreach(f ${files})
    file(STRINGS ${f} lines REGEX "^#include \"[a-z_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*$" "\\1" top "${line}")
      if(NOT line MATCHES "^#include \"attnlab/error.hpp\"" AND NOT top IN_LIST below)
        file(RELATIVE_PATH rel ${ROOT} ${f})
        list(APPEND bad "${rel}: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()
file(GLOB public_headers ${ROOT}/cpp/attnlab/*.hpp ${ROOT}/cpp/attnlab/*.hpp.in)
foreach(f ${public_headers})
  file(STRINGS ${f} lines REGEX "^#include \"")
  foreach(line ${lines})
    if(NOT line MATCHES "^#include \"attnlab/")
      file(RELATIVE_PATH rel ${ROOT} ${f})
      list(APPEND bad "${rel} (installed): ${line}")
    endif()
  endforeach()
endforeach()
list(JOIN order " <- " chain)
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "includes against the layering ${chain}:\n  ${text}")
endif()
message(STATUS "layering: no include runs back up ${chain}")
