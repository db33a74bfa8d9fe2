// The one exception type of attnlab: every failure the engine reports (bad config, unreadable
// checkpoint, out-of-range id, ...) is an attnlab::Error carrying one readable line.
#pragma once
#include <stdexcept>
#include <string>

namespace attnlab {

struct Error : std::runtime_error {
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace attnlab
