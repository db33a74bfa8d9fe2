#include "api/standalone.hpp"

#include "core/check.hpp"
#include "kernels/attention.hpp"

namespace attnlab::api {

AttentionResult attention(const std::vector<float>& q, const std::vector<float>& k,
                          const std::vector<float>& v, const std::vector<uint8_t>& key_pad,
                          const AttentionDims& d) {
  AL_CHECK(d.B > 0 && d.H > 0 && d.T > 0 && d.S > 0 && d.Dk > 0 && d.Dv > 0,
           "attention: every dimension must be positive (B=" << d.B << " H=" << d.H << " T=" << d.T
                                                              << " S=" << d.S << " Dk=" << d.Dk
                                                              << " Dv=" << d.Dv << ")");
  const size_t bh = size_t(d.B) * d.H;
  AL_CHECK(q.size() == bh * d.T * d.Dk,
           "attention: q has " << q.size() << " values, expected B*H*T*Dk = " << bh * d.T * d.Dk);
  AL_CHECK(k.size() == bh * d.S * d.Dk,
           "attention: k has " << k.size() << " values, expected B*H*S*Dk = " << bh * d.S * d.Dk);
  AL_CHECK(v.size() == bh * d.S * d.Dv,
           "attention: v has " << v.size() << " values, expected B*H*S*Dv = " << bh * d.S * d.Dv);
  AL_CHECK(key_pad.empty() || key_pad.size() == size_t(d.B) * d.S,
           "attention: key padding mask has " << key_pad.size() << " values, expected B*S = "
                                              << size_t(d.B) * d.S);
  AttentionResult r;
  r.out.resize(bh * d.T * d.Dv);
  r.weights.resize(bh * d.T * d.S);
  kernels::attention_forward(r.out.data(), r.weights.data(), q.data(), k.data(), v.data(),
                             key_pad.empty() ? nullptr : key_pad.data(), d.causal, d.B, d.H, d.T,
                             d.S, d.Dk, d.Dv);
  return r;
}

}  // namespace attnlab::api
