// Errors and argument checks for the whole engine.
// Every user-facing failure is an attnlab::Error carrying one readable line; front ends
// (the CLI, the Embind bindings) turn it into a stderr line + exit code, or a JS Error.
// AL_CHECK(cond, a << b << c) builds the message only when the check fails.
#pragma once
#include <sstream>
#include <string>

#include "attnlab/error.hpp"  // attnlab::Error, shared with the public API

#define AL_CHECK(cond, msg)                           \
  do {                                                \
    if (!(cond)) {                                    \
      std::ostringstream al_check_stream_;            \
      al_check_stream_ << msg;                        \
      throw ::attnlab::Error(al_check_stream_.str()); \
    }                                                 \
  } while (0)
