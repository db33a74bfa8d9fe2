// Token embeddings scaled by √C (Vaswani et al. 2017, §3.4) and positional encodings (§3.5):
//   PE(pos, 2i) = sin(pos / 10000^(2i/C)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/C))
// or a learned table [max_len, C]. Token ids are checked on the host, uploaded once into the
// workspace, then gathered and scatter-added by the kernel table in backend memory.
// Shapes: ids [B*T], out [B,T,C], table [V,C].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layers/context.hpp"

namespace attnlab {

// The sinusoidal table [L, C] computed on the host (in double, rounded once to float).
std::vector<float> sinusoidal_table(int L, int C);

struct Embedding {
  int W = -1;
  int V = 0, C = 0;
  float scale = 1.f;
  void declare(ParamArena& P, const std::string& name, int V_, int C_, bool scale_by_sqrt_c);
  // Checks host ids [R] against [0, V) and copies them into the workspace (backend memory,
  // valid until the workspace is reset); the result feeds forward_ids / backward_ids.
  const int32_t* upload_ids(const Ctx& c, const int32_t* host_ids, int R) const;
  // out[r,:] = W[ids[r],:] * scale, ids in backend memory
  void forward_ids(const Ctx& c, float* out, const int32_t* ids, int R) const;
  // out = scale * W[ids]  =>  dW[ids[r],:] += scale * dout[r,:], ids in backend memory
  void backward_ids(const Ctx& c, const float* dout, const int32_t* ids, int R) const;
  // The same with host ids: upload_ids, then the call above.
  void forward(const Ctx& c, float* out, const int32_t* host_ids, int R) const;
  void backward(const Ctx& c, const float* dout, const int32_t* host_ids, int R) const;
};

// Adds positions 0..T-1 to x [B,T,C]: a fixed sinusoidal table or the learned `pos_embed`.
struct PositionalEncoding {
  bool learned = false;
  int table = -1;  // learned: parameter id
  int L = 0, C = 0;
  float* fixed = nullptr;  // sinusoidal: [L,C] in backend memory, owned
  const KernelTable* kt = nullptr;
  PositionalEncoding() = default;
  PositionalEncoding(const PositionalEncoding&) = delete;
  PositionalEncoding& operator=(const PositionalEncoding&) = delete;
  ~PositionalEncoding();
  void declare(ParamArena& P, const std::string& name, bool learned_, int L_, int C_);
  void forward(const Ctx& c, float* x, int B, int T) const;  // x += PE[0:T]
  const float* rows(const Ctx& c, int T) const;              // PE[0:T] (T checked against max_len)
  void backward(const Ctx& c, const float* dx, int B, int T) const;  // learned: dPE += Σ_b dx
};

}  // namespace attnlab
