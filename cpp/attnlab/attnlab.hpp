// attnlab: an attention and Transformer engine (C++17, xsimd kernels). The one header of its
// public API; find_package(attnlab CONFIG REQUIRED) + target_link_libraries(app attnlab::attnlab).
//   attnlab::Session create / load / train / evaluate / forward / decode / translate /
//                    attention / save (attnlab/session.hpp)
//   attnlab::Error   every failure, one readable line (attnlab/error.hpp)
//   ATTNLAB_VERSION_STRING, attnlab::version()  (attnlab/version.hpp)
// The engine's own headers (core/, kernels/, layers/, models/, train/, io/, api/) are installed
// beside these for code that needs the internals; they carry no stability promise.
#pragma once
#include "attnlab/error.hpp"
#include "attnlab/session.hpp"
#include "attnlab/version.hpp"
