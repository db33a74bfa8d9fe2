// Plain-C++ entry points behind the guide's standalone computations (no Embind here, so
// they are tested natively). Each checks its arguments and throws attnlab::Error.
#pragma once
#include <cstdint>
#include <vector>

namespace attnlab::api {

struct AttentionDims {
  int B = 1, H = 1, T = 1, S = 1, Dk = 1, Dv = 1;
  bool causal = false;
};

struct AttentionResult {
  std::vector<float> out;      // [B,H,T,Dv]
  std::vector<float> weights;  // [B,H,T,S]
};

// Scaled dot-product attention of given Q, K, V (key_pad: empty or [B,S], nonzero = masked).
AttentionResult attention(const std::vector<float>& q, const std::vector<float>& k,
                          const std::vector<float>& v, const std::vector<uint8_t>& key_pad,
                          const AttentionDims& d);

}  // namespace attnlab::api
