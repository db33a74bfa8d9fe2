// The kernel table: every piece of math the models run, as free functions on raw pointers
// (outputs first, dimensions last). One table per backend: the CPU one (xsimd: AVX2/FMA natively,
// SIMD128 in WebAssembly) and, when built, the CUDA one (cpp/cuda/). Models never call a kernel
// directly, only through a `const KernelTable&`, so one model source serves CPU, WASM and CUDA.
// Pointers handed to a table's functions live in that backend's memory (host or device).
// Legend: M,N,K GEMM sizes; R rows; C row width; V vocabulary; B,H,T,S attention sizes.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnlab {

enum class Act : int { None = 0, ReLU = 1, GELU = 2 };  // GELU: tanh approximation

// The inverted dropout a fused entry applies to values it computes (dropout_forward's contract
// with offset 0, element i being the i-th of the [R, C] rows it covers): mask[i] = 0 if
// counter_hash::bits32(seed, i) < floor(p * 2^32), else 1/(1-p), written to `mask`; the values
// are multiplied by it. mask null: no dropout.
struct DropoutArgs {
  float* mask = nullptr;
  float p = 0.f;
  uint64_t seed = 0;
};

// What a fused GEMM (KernelTable::gemm_fused) does to each element of C after the product, in
// this order: v = alpha op(A) op(B) + beta C; v += bias[j] (bias [N]); pre[i,j] = v; then
// v = act(v) and v *= mask[i,j] (a dropout mask) and v under the dropout `drop` (DropoutArgs,
// element (i, j) being number i*ldc + j: its mask drawn and stored) or, when dact is set (the
// backward of an activation and a dropout), v *= mask[i,j] and v *= act'(dact[i,j]); and
// rowsum[i] += sum_k op(A)[i,k] (a bias gradient beside dW = dyᵀ x). pre, mask, dact and
// drop.mask are laid out as C (leading dimension ldc). Every pointer may be null (nothing of
// that kind).
struct GemmEpilogue {
  const float* bias = nullptr;
  Act act = Act::None;
  float* pre = nullptr;
  const float* mask = nullptr;
  const float* dact = nullptr;
  float* rowsum = nullptr;
  DropoutArgs drop;
};

struct KernelTable {
  const char* name;  // "cpu", "cuda" or "webgpu"
  // A deferred table (WebGPU) cannot read its memory synchronously: a training step there keeps
  // its loss and gradient norm in backend memory (the readback-free entries below) and the host
  // reads them later, asynchronously. Its `download` serves only ranges fetched beforehand.
  bool deferred;

  // --- memory (device memory for CUDA, the heap for CPU) ---
  void* (*alloc)(size_t bytes);  // zero-filled
  void (*release)(void* p);
  void (*zero)(void* p, size_t bytes);
  void (*upload)(void* dst, const void* host_src, size_t bytes);
  void (*download)(void* host_dst, const void* src, size_t bytes);
  void (*copy)(void* dst, const void* src, size_t bytes);  // within the backend
  void (*synchronize)();

  // --- GEMM, row-major: C[M,N] = alpha * op(A) op(B) + beta * C ---
  // op(A) is [M,K]: A is [M,K] (lda >= K) or, transposed, [K,M] (lda >= M); likewise B.
  void (*gemm)(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
               const float* B, int ldb, float beta, float* C, int ldc);
  // `batch` independent GEMMs, operand i at A + i*strideA (etc.): attention heads.
  void (*gemm_batched)(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                       int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                       float* C, int ldc, long strideC, int batch);

  // --- row kernels ---
  // y[r,:] = softmax(x[r,:] * scale) with attention masks: for row r = ((b*H+h)*T + i), key j is
  // masked when key_pad[b*S+j] != 0 (key_pad may be null) or causal && j > i + (S-T). Fully
  // masked rows give zeros. x and y are [B*H*T, S] and may alias.
  void (*softmax_forward)(float* y, const float* x, float scale, const uint8_t* key_pad,
                          bool causal, int B, int H, int T, int S);
  // dx = scale * y * (dy - sum_j dy*y)  (dx may alias dy), rows of width S
  void (*softmax_backward)(float* dx, const float* y, const float* dy, float scale, int R, int S);

  // y = (x - mean) * rstd * gamma + beta over rows [R,C]; mean/rstd [R] saved for backward.
  void (*layernorm_forward)(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                            const float* beta, float eps, int R, int C);
  // dx assigned; dgamma, dbeta accumulated (+=).
  void (*layernorm_backward)(float* dx, float* dgamma, float* dbeta, const float* dy,
                             const float* x, const float* mean, const float* rstd,
                             const float* gamma, int R, int C);

  // y = act(x + bias) over rows [R,C] (bias [C] or null); y may alias x. `pre` (may be null)
  // receives x + bias for the backward pass.
  void (*bias_act_forward)(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                           int C);
  // dx = dy * act'(pre) (dx may alias dy); dbias (may be null) accumulated (+=) with sum_r dx.
  void (*bias_act_backward)(float* dx, float* dbias, const float* dy, const float* pre, Act act,
                            int R, int C);

  // Softmax cross-entropy with label smoothing eps over V classes (target gets 1-eps+eps/V,
  // the others eps/V), rows whose target == ignore_index skipped. Writes per-row loss to
  // `loss` [R] (0 for ignored rows) and dlogits [R,V] = grad_scale * (softmax - target_dist)
  // (zero rows for ignored). `dlogits` may alias `logits`. Returns nothing: reduce `loss`.
  void (*cross_entropy)(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                        float smoothing, int ignore_index, float grad_scale, int R, int V);

  // Adam / AdamW step on n parameters (t = step count from 1; decoupled weight decay `wd`).
  void (*adam)(float* p, float* m, float* v, const float* g, long n, float lr, float beta1,
               float beta2, float eps, float wd, int t);

  // y[i] += alpha * x[i] ; y[i] = alpha * x[i] (alias-safe)
  void (*axpy)(float* y, float alpha, const float* x, long n);
  void (*scale)(float* y, float alpha, const float* x, long n);
  // sum of squares of x[0..n) written to host *out (for gradient-norm clipping)
  void (*sumsq)(float* out_host, const float* x, long n);

  // --- the readback-free step (every table has them; deferred ones must use them) ---
  // out[0] = float(sum of x[0..n) / divisor), in backend memory (a step's mean loss).
  void (*sum_to)(float* out, const float* x, long n, double divisor);
  // out[0] = the sum of squares of x[0..n), in backend memory (the global gradient norm²).
  void (*sumsq_to)(float* out, const float* x, long n);
  // The clip and the non-finite check of one step, on backend floats. record = [loss, norm]:
  // record[0] holds the step's loss already; norm = sqrt(sumsq[0]) is written to record[1].
  // state = [stopped, factor]: stopped becomes 1 (and stays, for every later step) when the loss
  // or the norm is not finite; factor = max_norm / (norm + 1e-6) when max_norm > 0 and
  // norm > max_norm, else 1.
  void (*step_guard)(float* record, float* state, const float* sumsq, float max_norm);
  // adam on gradients g * state[1], nothing at all (weights and moments untouched) when
  // state[0] != 0. g may be scaled in place.
  void (*adam_guarded)(float* p, float* m, float* v, float* g, long n, float lr, float beta1,
                       float beta2, float eps, float wd, int t, const float* state);

  // --- embeddings and dropout (token ids and masks in backend memory) ---
  // out[r,:] = scale * W[ids[r],:] over rows [R,C]; ids [R] index rows of W (callers validate).
  void (*embedding_forward)(float* out, const float* W, const int32_t* ids, int R, int C,
                            float scale);
  // out = scale * W[ids]  =>  dW[ids[r],:] += scale * dout[r,:]; repeated ids accumulate (the
  // CPU adds rows in order; CUDA uses atomics, so there the order of the sums is unspecified).
  void (*embedding_backward)(float* dW, const float* dout, const int32_t* ids, int R, int C,
                             float scale);
  // Inverted dropout, 0 <= p < 1: mask[i] (float [n]) = 0 if counter_hash::bits32(seed,
  // offset + i) < floor(p * 2^32), else 1/(1-p); y = x * mask (y may alias x). The mask is a
  // pure function of (seed, offset + i) (kernels/counter_hash.hpp): identical on every table.
  void (*dropout_forward)(float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                          uint64_t offset);
  // y = x * mask  =>  dx = dy * mask (dx may alias dy)
  void (*dropout_backward)(float* dx, const float* mask, const float* dy, long n);

  // --- recurrent layers and additive/pointer attention (contracts in kernels/recurrent.hpp) ---
  void (*tanh_bias_forward)(float* y, const float* x, const float* bias, int R, int C);
  void (*tanh_bias_backward)(float* dx, float* dbias, const float* dy, const float* y, int R,
                             int C);
  void (*gru_gates_forward)(float* zr, float* rh, const float* xg, const float* hg,
                            const float* h_prev, int B, int C);
  void (*gru_gates_backward)(float* dxg, float* dh_prev, const float* drh, const float* zr,
                             const float* h_prev, int B, int C);
  void (*gru_cell_forward)(float* h, float* cand, const float* xg, const float* hc, const float* zr,
                           const float* h_prev, int B, int C);
  void (*gru_cell_backward)(float* dxg, float* dh_prev, const float* dh, const float* zr,
                            const float* cand, const float* h_prev, int B, int C);
  void (*lstm_cell_forward)(float* h, float* c, float* act, float* tc, const float* pre,
                            const float* c_prev, int B, int C);
  void (*lstm_cell_backward)(float* dpre, float* dc_prev, const float* dh, const float* dc,
                             const float* act, const float* c_prev, const float* tc, int B, int C);
  void (*additive_score_forward)(float* e, float* t, const float* k, const float* q, const float* v,
                                 int S, int B, int A);
  void (*additive_score_backward)(float* dk, float* dq, float* dv, const float* de, const float* t,
                                  const float* v, int S, int B, int A);
  void (*probs_xent)(float* loss, float* dlogits, const float* p, const int32_t* targets,
                     float scale, int R, int S);

  // --- fused entries (optional) ---
  // A table whose every call is a GPU dispatch (WebGPU) offers these so that a step encodes
  // fewer, fuller dispatches; the CPU and CUDA tables leave them null and the layers then make
  // the plain calls above. Results are those of the plain calls up to the order of sums.
  // gemm, then the epilogue e on each element of C (GemmEpilogue).
  void (*gemm_fused)(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                     int lda, const float* B, int ldb, float beta, float* C, int ldc,
                     const GemmEpilogue& e);
  // s = x + drop(r), y = LN(s) (layernorm_forward's contract with x + r as its input, r under
  // the dropout `drop` (DropoutArgs, over r's [R, C]: a residual's sublayer output); s keeps the
  // sum for the backward pass; r null: y = LN(x), s untouched, no dropout).
  void (*add_layernorm_forward)(float* y, float* s, float* mean, float* rstd, const float* x,
                                const float* r, const float* gamma, const float* beta, float eps,
                                int R, int C, const DropoutArgs& drop);
  // dx = (accumulate ? dx : 0) + (add ? add : 0) + LN'(dy), and copy (may be null) = the same
  // values times copy_mask (may be null: times 1; a dropout's mask, its backward); dgamma,
  // dbeta accumulated as by layernorm_backward. dx and copy must not alias dy.
  void (*layernorm_backward_fused)(float* dx, float* copy, float* dgamma, float* dbeta,
                                   const float* dy, const float* add, const float* x,
                                   const float* mean, const float* rstd, const float* gamma,
                                   bool accumulate, int R, int C, const float* copy_mask);
  // softmax_forward's y, and yd = y ⊙ mask under the dropout `drop` (DropoutArgs over the
  // [B*H*T, S] rows): attention's weights and their dropout in one kernel (yd must not alias y).
  void (*softmax_dropout_forward)(float* y, float* yd, const float* x, float scale,
                                  const uint8_t* key_pad, bool causal, int B, int H, int T, int S,
                                  const DropoutArgs& drop);
  // softmax_backward with dy ⊙ mask as its gradient: a dropout's backward and the softmax's in
  // one kernel (dx may alias dy).
  void (*softmax_backward_masked)(float* dx, const float* y, const float* dy, const float* mask,
                                  float scale, int R, int S);
  // out[r,:] = drop(scale W[ids[r],:] + pe[r % L,:]) over rows [R,C]: embedding_forward, the
  // positional encodings (pe [L,C], may be null: none) added to each block of L rows, then the
  // dropout `drop` (DropoutArgs over out), in one kernel.
  void (*embedding_pe_forward)(float* out, const float* W, const int32_t* ids, int R, int C,
                               float scale, const float* pe, int L, const DropoutArgs& drop);
  // embedding_backward of dout ⊙ mask (mask may be null: dout): a dropout's backward in the
  // scatter-add.
  void (*embedding_backward_masked)(float* dW, const float* dout, const float* mask,
                                    const int32_t* ids, int R, int C, float scale);
};

// The CPU table (xsimd kernels). Always available.
const KernelTable& cpu_kernels();
// The CUDA table, or nullptr when the engine was built without CUDA or no GPU is present.
const KernelTable* cuda_kernels();
// The WebGPU table (WebAssembly builds, deferred): every entry calls the JS GpuTable of
// web/gpu/table.js that the page attached to the module (Module.gpuTable); nullptr natively.
const KernelTable* webgpu_kernels();

// Threads used by CPU kernels (natively; 1 in single-thread WebAssembly). n <= 0: all cores.
void set_num_threads(int n);
int num_threads();

}  // namespace attnlab
