#include "api/standalone.hpp"

#include <cstdint>

#include "core/check.hpp"
#include "kernels/attention.hpp"
#include "models/memory.hpp"

namespace attnlab::api {

AttentionResult attention(const std::vector<float>& q, const std::vector<float>& k,
                          const std::vector<float>& v, const std::vector<uint8_t>& key_pad,
                          const AttentionDims& d) {
  AL_CHECK(d.B > 0 && d.H > 0 && d.T > 0 && d.S > 0 && d.Dk > 0 && d.Dv > 0,
           "attention: every dimension must be positive (B=" << d.B << " H=" << d.H << " T=" << d.T
                                                             << " S=" << d.S << " Dk=" << d.Dk
                                                             << " Dv=" << d.Dv << ")");
  // Sizes in 64 bits: B*H*T*S overflows a 32-bit size_t (WebAssembly) long before memory runs out.
  const uint64_t bh = uint64_t(d.B) * uint64_t(d.H);
  const uint64_t nq = bh * uint64_t(d.T) * uint64_t(d.Dk), nk = bh * uint64_t(d.S) * uint64_t(d.Dk),
                 nv = bh * uint64_t(d.S) * uint64_t(d.Dv);
  const uint64_t nout = bh * uint64_t(d.T) * uint64_t(d.Dv),
                 nw = bh * uint64_t(d.T) * uint64_t(d.S);
  AL_CHECK(q.size() == nq,
           "attention: q has " << q.size() << " values, expected B*H*T*Dk = " << nq);
  AL_CHECK(k.size() == nk,
           "attention: k has " << k.size() << " values, expected B*H*S*Dk = " << nk);
  AL_CHECK(v.size() == nv,
           "attention: v has " << v.size() << " values, expected B*H*S*Dv = " << nv);
  AL_CHECK(key_pad.empty() || key_pad.size() == uint64_t(d.B) * uint64_t(d.S),
           "attention: key padding mask has "
               << key_pad.size() << " values, expected B*S = " << uint64_t(d.B) * uint64_t(d.S));
  check_alloc(4.0 * (double(nout) + double(nw)), "attention: the output and weights");
  AttentionResult r;
  r.out.resize(size_t(nout));
  r.weights.resize(size_t(nw));
  kernels::attention_forward(r.out.data(), r.weights.data(), q.data(), k.data(), v.data(),
                             key_pad.empty() ? nullptr : key_pad.data(), d.causal, d.B, d.H, d.T,
                             d.S, d.Dk, d.Dv);
  return r;
}

}  // namespace attnlab::api
