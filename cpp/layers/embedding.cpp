// Token embeddings and positional encodings (see embedding.hpp).
#include "layers/embedding.hpp"

#include <cmath>

#include "core/check.hpp"

namespace attnlab {

std::vector<float> sinusoidal_table(int L, int C) {
  std::vector<float> pe(size_t(L) * C);
  for (int pos = 0; pos < L; ++pos)
    for (int i = 0; i < C; ++i) {
      const double freq = std::pow(10000.0, -double(i / 2 * 2) / C);
      pe[size_t(pos) * C + i] = float(i % 2 == 0 ? std::sin(pos * freq) : std::cos(pos * freq));
    }
  return pe;
}

void Embedding::declare(ParamArena& P, const std::string& name, int V_, int C_,
                        bool scale_by_sqrt_c) {
  V = V_;
  C = C_;
  scale = scale_by_sqrt_c ? std::sqrt(float(C)) : 1.f;
  W = P.add(name, {V, C}, Init::Normal, 1.f / std::sqrt(float(C)));
}

const int32_t* Embedding::upload_ids(const Ctx& c, const int32_t* host_ids, int R) const {
  for (int r = 0; r < R; ++r)
    AL_CHECK(host_ids[r] >= 0 && host_ids[r] < V,
             "token id " << host_ids[r] << " out of range [0, " << V << ")");
  int32_t* ids = c.ws.ints(size_t(R));  // [R]
  c.kt.upload(ids, host_ids, size_t(R) * sizeof(int32_t));
  return ids;
}

void Embedding::forward_ids(const Ctx& c, float* out, const int32_t* ids, int R) const {
  c.kt.embedding_forward(out, c.P.val(W), ids, R, C, scale);
}

void Embedding::backward_ids(const Ctx& c, const float* dout, const int32_t* ids, int R) const {
  c.kt.embedding_backward(c.P.grad(W), dout, ids, R, C, scale);
}

void Embedding::forward(const Ctx& c, float* out, const int32_t* host_ids, int R) const {
  forward_ids(c, out, upload_ids(c, host_ids, R), R);
}

void Embedding::backward(const Ctx& c, const float* dout, const int32_t* host_ids, int R) const {
  backward_ids(c, dout, upload_ids(c, host_ids, R), R);
}

PositionalEncoding::~PositionalEncoding() {
  if (fixed) kt->release(fixed);
}

void PositionalEncoding::declare(ParamArena& P, const std::string& name, bool learned_, int L_,
                                 int C_) {
  learned = learned_;
  L = L_;
  C = C_;
  kt = &P.kernels();
  if (learned) {
    table = P.add(name, {L, C}, Init::Normal, 0.02f);
  } else {
    const std::vector<float> pe = sinusoidal_table(L, C);
    fixed = static_cast<float*>(kt->alloc(pe.size() * sizeof(float)));
    kt->upload(fixed, pe.data(), pe.size() * sizeof(float));
  }
}

const float* PositionalEncoding::rows(const Ctx& c, int T) const {
  AL_CHECK(T <= L, "sequence length " << T << " exceeds max_len " << L);
  return learned ? c.P.val(table) : fixed;
}

void PositionalEncoding::forward(const Ctx& c, float* x, int B, int T) const {
  const float* pe = rows(c, T);
  // x[b] += pe for every b: the table's first T rows as a bias over B rows of T*C (one call)
  c.kt.bias_act_forward(x, nullptr, x, pe, Act::None, B, T * C);
}

void PositionalEncoding::backward(const Ctx& c, const float* dx, int B, int T) const {
  if (!learned) return;
  for (int b = 0; b < B; ++b) c.kt.axpy(c.P.grad(table), 1.f, dx + size_t(b) * T * C, long(T) * C);
}

}  // namespace attnlab
