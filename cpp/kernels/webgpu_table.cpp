// The WebGPU kernel table of the WebAssembly engine: every entry is a call into the JS
// GpuTable (web/gpu/table.js) that the page attached to the module as Module.gpuTable, through
// EM_JS (Emscripten's inline JS functions). Addresses are byte offsets into the GpuTable's arena
// (one storage buffer), so the C++ side keeps plain pointer arithmetic; host buffers are the wasm
// heap. The table is deferred: calls only encode GPU work, and `download` serves only ranges
// the JS side fetched beforehand (GpuTable.prefetch). Why a JS layer of our own rather than
// Emscripten's webgpu.h: see the README ("The reader's GPU").
#include "core/check.hpp"
#include "kernels/gemm_grid.hpp"
#include "kernels/kernels.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>

#include <cstdint>
#include <string_view>

namespace {

// clang-format off
EM_JS(int, al_gpu_present, (), { return Module.gpuTable ? 1 : 0; });
EM_JS(uint32_t, al_gpu_alloc, (uint32_t bytes), { return Module.gpuTable.alloc(bytes); });
// A lost device takes the arena with it (web/gpu/backend.js detaches the table): what a session
// gives back then is gone already, and its destructor must not throw through wasm frames.
EM_JS(void, al_gpu_release, (uint32_t at), { if (Module.gpuTable) Module.gpuTable.release(at); });
EM_JS(void, al_gpu_zero, (uint32_t at, uint32_t bytes), { Module.gpuTable.zero(at, bytes); });
EM_JS(void, al_gpu_upload, (uint32_t at, uint32_t src, uint32_t bytes), {
  Module.gpuTable.upload(at, HEAPU8.subarray(src, src + bytes));
});
EM_JS(void, al_gpu_download, (uint32_t dst, uint32_t at, uint32_t bytes), {
  HEAPU8.set(Module.gpuTable.download(at, bytes), dst);
});
EM_JS(void, al_gpu_copy, (uint32_t dst, uint32_t src, uint32_t bytes), { Module.gpuTable.copy(dst, src, bytes); });
EM_JS(void, al_gpu_sync, (), { Module.gpuTable.synchronize(); });
EM_JS(void, al_gpu_gemm_batched, (int tA, int tB, int M, int N, int K, float alpha, uint32_t A, int lda, int sA,
                                 uint32_t B, int ldb, int sB, float beta, uint32_t C, int ldc, int sC, int batch), {
  Module.gpuTable.gemm_batched(!!tA, !!tB, M, N, K, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC, batch);
});
EM_JS(void, al_gpu_gemm_grid, (int tA, int tB, int M, int N, int K, float alpha, uint32_t A, int lda, int oA, int iA,
                              uint32_t B, int ldb, int oB, int iB, float beta, uint32_t C, int ldc, int oC, int iC,
                              int outer, int inner), {
  Module.gpuTable.gemm_grid(!!tA, !!tB, M, N, K, alpha, A, lda, oA, iA, B, ldb, oB, iB, beta, C, ldc, oC, iC, outer,
                            inner);
});
EM_JS(void, al_gpu_gemm_fused, (int tA, int tB, int M, int N, int K, float alpha, uint32_t A, int lda, uint32_t B,
                               int ldb, float beta, uint32_t C, int ldc, uint32_t bias, int act, uint32_t pre,
                               uint32_t mask, uint32_t dact, uint32_t rowsum, uint32_t dmask, float p,
                               uint32_t seed_lo, uint32_t seed_hi), {
  const seed = (BigInt(seed_hi >>> 0) << BigInt(32)) | BigInt(seed_lo >>> 0);
  Module.gpuTable.gemm_fused(!!tA, !!tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                             { bias, act, pre, mask, dact, rowsum, drop: { mask: dmask, p, seed } });
});
EM_JS(void, al_gpu_add_layernorm_forward, (uint32_t y, uint32_t s, uint32_t mean, uint32_t rstd, uint32_t x,
                                          uint32_t r, uint32_t g, uint32_t b, float eps, int R, int C, uint32_t mask,
                                          float p, uint32_t seed_lo, uint32_t seed_hi), {
  const seed = (BigInt(seed_hi >>> 0) << BigInt(32)) | BigInt(seed_lo >>> 0);
  Module.gpuTable.add_layernorm_forward(y, s, mean, rstd, x, r, g, b, eps, R, C, { mask, p, seed });
});
EM_JS(void, al_gpu_layernorm_backward_fused, (uint32_t dx, uint32_t copy, uint32_t dg, uint32_t db, uint32_t dy,
                                             uint32_t add, uint32_t x, uint32_t mean, uint32_t rstd, uint32_t g,
                                             int accumulate, int R, int C, uint32_t copy_mask), {
  Module.gpuTable.layernorm_backward_fused(dx, copy, dg, db, dy, add, x, mean, rstd, g, !!accumulate, R, C, copy_mask);
});
EM_JS(void, al_gpu_softmax_forward, (uint32_t y, uint32_t x, float scale, uint32_t pad, int causal, int B, int H,
                                    int T, int S), {
  Module.gpuTable.softmax_forward(y, x, scale, pad, !!causal, B, H, T, S);
});
EM_JS(void, al_gpu_softmax_dropout_forward, (uint32_t y, uint32_t yd, uint32_t x, float scale, uint32_t pad,
                                            int causal, int B, int H, int T, int S, uint32_t mask, float p,
                                            uint32_t seed_lo, uint32_t seed_hi), {
  const seed = (BigInt(seed_hi >>> 0) << BigInt(32)) | BigInt(seed_lo >>> 0);
  Module.gpuTable.softmax_dropout_forward(y, yd, x, scale, pad, !!causal, B, H, T, S, { mask, p, seed });
});
EM_JS(void, al_gpu_softmax_backward_masked, (uint32_t dx, uint32_t y, uint32_t dy, uint32_t mask, float scale, int R,
                                            int S), {
  Module.gpuTable.softmax_backward_masked(dx, y, dy, mask, scale, R, S);
});
EM_JS(void, al_gpu_softmax_backward, (uint32_t dx, uint32_t y, uint32_t dy, float scale, int R, int S), {
  Module.gpuTable.softmax_backward(dx, y, dy, scale, R, S);
});
EM_JS(void, al_gpu_layernorm_forward, (uint32_t y, uint32_t mean, uint32_t rstd, uint32_t x, uint32_t g,
                                      uint32_t b, float eps, int R, int C), {
  Module.gpuTable.layernorm_forward(y, mean, rstd, x, g, b, eps, R, C);
});
EM_JS(void, al_gpu_layernorm_backward, (uint32_t dx, uint32_t dg, uint32_t db, uint32_t dy, uint32_t x,
                                       uint32_t mean, uint32_t rstd, uint32_t g, int R, int C), {
  Module.gpuTable.layernorm_backward(dx, dg, db, dy, x, mean, rstd, g, R, C);
});
EM_JS(void, al_gpu_bias_act_forward, (uint32_t y, uint32_t pre, uint32_t x, uint32_t bias, int act, int R, int C), {
  Module.gpuTable.bias_act_forward(y, pre, x, bias, act, R, C);
});
EM_JS(void, al_gpu_bias_act_backward, (uint32_t dx, uint32_t db, uint32_t dy, uint32_t pre, int act, int R, int C), {
  Module.gpuTable.bias_act_backward(dx, db, dy, pre, act, R, C);
});
EM_JS(void, al_gpu_cross_entropy, (uint32_t loss, uint32_t dl, uint32_t logits, uint32_t t, float smoothing,
                                  int ignore, float gs, int R, int V), {
  Module.gpuTable.cross_entropy(loss, dl, logits, t, smoothing, ignore, gs, R, V);
});
EM_JS(void, al_gpu_adam, (uint32_t p, uint32_t m, uint32_t v, uint32_t g, int n, float lr, float b1, float b2,
                         float eps, float wd, int t), {
  Module.gpuTable.adam(p, m, v, g, n, lr, b1, b2, eps, wd, t);
});
EM_JS(void, al_gpu_adam_guarded, (uint32_t p, uint32_t m, uint32_t v, uint32_t g, int n, float lr, float b1,
                                 float b2, float eps, float wd, int t, uint32_t state), {
  Module.gpuTable.adam_guarded(p, m, v, g, n, lr, b1, b2, eps, wd, t, state);
});
EM_JS(void, al_gpu_axpby, (uint32_t y, uint32_t x, int n, float a, float b), { Module.gpuTable.axpby(y, x, n, a, b); });
EM_JS(void, al_gpu_sum_to, (uint32_t out, uint32_t x, int n, double divisor), {
  Module.gpuTable.sum_to(out, x, n, divisor);
});
EM_JS(void, al_gpu_sumsq_to, (uint32_t out, uint32_t x, int n), { Module.gpuTable.sumsq_to(out, x, n); });
EM_JS(void, al_gpu_step_guard, (uint32_t record, uint32_t state, uint32_t ss, float max_norm), {
  Module.gpuTable.step_guard(record, state, ss, max_norm);
});
EM_JS(void, al_gpu_embedding_forward, (uint32_t out, uint32_t W, uint32_t ids, int R, int C, float scale), {
  Module.gpuTable.embedding_forward(out, W, ids, R, C, scale);
});
EM_JS(void, al_gpu_embedding_pe_forward, (uint32_t out, uint32_t W, uint32_t ids, int R, int C, float scale,
                                         uint32_t pe, int L, uint32_t mask, float p, uint32_t seed_lo,
                                         uint32_t seed_hi), {
  const seed = (BigInt(seed_hi >>> 0) << BigInt(32)) | BigInt(seed_lo >>> 0);
  Module.gpuTable.embedding_pe_forward(out, W, ids, R, C, scale, pe, L, { mask, p, seed });
});
EM_JS(void, al_gpu_embedding_backward_masked, (uint32_t dW, uint32_t dout, uint32_t mask, uint32_t ids, int R,
                                              int C, float scale), {
  Module.gpuTable.embedding_backward_masked(dW, dout, mask, ids, R, C, scale);
});
EM_JS(void, al_gpu_embedding_backward, (uint32_t dW, uint32_t dout, uint32_t ids, int R, int C, float scale), {
  Module.gpuTable.embedding_backward(dW, dout, ids, R, C, scale);
});
EM_JS(void, al_gpu_dropout_forward, (uint32_t y, uint32_t mask, uint32_t x, int n, float p, uint32_t seed_lo,
                                    uint32_t seed_hi, uint32_t off_lo, uint32_t off_hi), {
  const big = (lo, hi) => (BigInt(hi >>> 0) << BigInt(32)) | BigInt(lo >>> 0);
  Module.gpuTable.dropout_forward(y, mask, x, n, p, big(seed_lo, seed_hi), big(off_lo, off_hi));
});
EM_JS(void, al_gpu_dropout_backward, (uint32_t dx, uint32_t mask, uint32_t dy, int n), {
  Module.gpuTable.dropout_backward(dx, mask, dy, n);
});
EM_JS(void, al_gpu_tanh_bias_forward, (uint32_t y, uint32_t x, uint32_t b, int R, int C), {
  Module.gpuTable.tanh_bias_forward(y, x, b, R, C);
});
EM_JS(void, al_gpu_tanh_bias_backward, (uint32_t dx, uint32_t db, uint32_t dy, uint32_t y, int R, int C), {
  Module.gpuTable.tanh_bias_backward(dx, db, dy, y, R, C);
});
EM_JS(void, al_gpu_gru_gates_forward, (uint32_t zr, uint32_t rh, uint32_t xg, uint32_t hg, uint32_t hp, int B, int C), {
  Module.gpuTable.gru_gates_forward(zr, rh, xg, hg, hp, B, C);
});
EM_JS(void, al_gpu_gru_gates_backward, (uint32_t dxg, uint32_t dhp, uint32_t drh, uint32_t zr, uint32_t hp, int B,
                                       int C), {
  Module.gpuTable.gru_gates_backward(dxg, dhp, drh, zr, hp, B, C);
});
EM_JS(void, al_gpu_gru_cell_forward, (uint32_t h, uint32_t cand, uint32_t xg, uint32_t hc, uint32_t zr, uint32_t hp,
                                     int B, int C), {
  Module.gpuTable.gru_cell_forward(h, cand, xg, hc, zr, hp, B, C);
});
EM_JS(void, al_gpu_gru_cell_backward, (uint32_t dxg, uint32_t dhp, uint32_t dh, uint32_t zr, uint32_t cand,
                                      uint32_t hp, int B, int C), {
  Module.gpuTable.gru_cell_backward(dxg, dhp, dh, zr, cand, hp, B, C);
});
EM_JS(void, al_gpu_lstm_cell_forward, (uint32_t h, uint32_t c, uint32_t act, uint32_t tc, uint32_t pre, uint32_t cp,
                                      int B, int C), {
  Module.gpuTable.lstm_cell_forward(h, c, act, tc, pre, cp, B, C);
});
EM_JS(void, al_gpu_lstm_cell_backward, (uint32_t dpre, uint32_t dcp, uint32_t dh, uint32_t dc, uint32_t act,
                                       uint32_t cp, uint32_t tc, int B, int C), {
  Module.gpuTable.lstm_cell_backward(dpre, dcp, dh, dc, act, cp, tc, B, C);
});
EM_JS(void, al_gpu_additive_score_forward, (uint32_t e, uint32_t t, uint32_t k, uint32_t q, uint32_t v, int S, int B,
                                           int A), {
  Module.gpuTable.additive_score_forward(e, t, k, q, v, S, B, A);
});
EM_JS(void, al_gpu_additive_score_backward, (uint32_t dk, uint32_t dq, uint32_t dv, uint32_t de, uint32_t t,
                                            uint32_t v, int S, int B, int A), {
  Module.gpuTable.additive_score_backward(dk, dq, dv, de, t, v, S, B, A);
});
EM_JS(void, al_gpu_probs_xent, (uint32_t loss, uint32_t dl, uint32_t p, uint32_t t, float scale, int R, int S), {
  Module.gpuTable.probs_xent(loss, dl, p, t, scale, R, S);
});
// clang-format on

template <class T>
uint32_t a(T* p) {
  return uint32_t(reinterpret_cast<uintptr_t>(p));
}

}  // namespace

namespace attnlab {

namespace {

KernelTable make_webgpu_table() {
  KernelTable t{};
  t.name = "webgpu";
  t.deferred = true;
  t.alloc = [](size_t bytes) {
    return reinterpret_cast<void*>(uintptr_t(al_gpu_alloc(uint32_t(bytes))));
  };
  t.release = [](void* p) { al_gpu_release(a(p)); };
  t.zero = [](void* p, size_t bytes) { al_gpu_zero(a(p), uint32_t(bytes)); };
  t.upload = [](void* dst, const void* src, size_t bytes) {
    al_gpu_upload(a(dst), a(src), uint32_t(bytes));
  };
  t.download = [](void* dst, const void* src, size_t bytes) {
    al_gpu_download(a(dst), a(src), uint32_t(bytes));
  };
  t.copy = [](void* dst, const void* src, size_t bytes) {
    al_gpu_copy(a(dst), a(src), uint32_t(bytes));
  };
  t.synchronize = [] { al_gpu_sync(); };
  t.gemm = [](bool tA, bool tB, int M, int N, int K, float alpha, const float* A, int lda,
              const float* B, int ldb, float beta, float* C, int ldc) {
    al_gpu_gemm_batched(tA, tB, M, N, K, alpha, a(A), lda, 0, a(B), ldb, 0, beta, a(C), ldc, 0, 1);
  };
  t.gemm_batched = [](bool tA, bool tB, int M, int N, int K, float alpha, const float* A, int lda,
                      long sA, const float* B, int ldb, long sB, float beta, float* C, int ldc,
                      long sC, int batch) {
    al_gpu_gemm_batched(tA, tB, M, N, K, alpha, a(A), lda, int(sA), a(B), ldb, int(sB), beta, a(C),
                        ldc, int(sC), batch);
  };
  t.gemm_fused = [](bool tA, bool tB, int M, int N, int K, float alpha, const float* A, int lda,
                    const float* B, int ldb, float beta, float* C, int ldc, const GemmEpilogue& e) {
    al_gpu_gemm_fused(tA, tB, M, N, K, alpha, a(A), lda, a(B), ldb, beta, a(C), ldc, a(e.bias),
                      int(e.act), a(e.pre), a(e.mask), a(e.dact), a(e.rowsum), a(e.drop.mask),
                      e.drop.p, uint32_t(e.drop.seed), uint32_t(e.drop.seed >> 32));
  };
  t.add_layernorm_forward = [](float* y, float* s, float* mean, float* rstd, const float* x,
                               const float* r, const float* g, const float* b, float eps, int R,
                               int C, const DropoutArgs& d) {
    al_gpu_add_layernorm_forward(a(y), a(s), a(mean), a(rstd), a(x), a(r), a(g), a(b), eps, R, C,
                                 a(d.mask), d.p, uint32_t(d.seed), uint32_t(d.seed >> 32));
  };
  t.layernorm_backward_fused = [](float* dx, float* copy, float* dg, float* db, const float* dy,
                                  const float* add, const float* x, const float* mean,
                                  const float* rstd, const float* g, bool accumulate, int R, int C,
                                  const float* copy_mask) {
    al_gpu_layernorm_backward_fused(a(dx), a(copy), a(dg), a(db), a(dy), a(add), a(x), a(mean),
                                    a(rstd), a(g), accumulate, R, C, a(copy_mask));
  };
  t.softmax_forward = [](float* y, const float* x, float scale, const uint8_t* pad, bool causal,
                         int B, int H, int T, int S) {
    al_gpu_softmax_forward(a(y), a(x), scale, a(pad), causal, B, H, T, S);
  };
  t.softmax_backward = [](float* dx, const float* y, const float* dy, float scale, int R, int S) {
    al_gpu_softmax_backward(a(dx), a(y), a(dy), scale, R, S);
  };
  t.softmax_dropout_forward = [](float* y, float* yd, const float* x, float scale,
                                 const uint8_t* pad, bool causal, int B, int H, int T, int S,
                                 const DropoutArgs& d) {
    al_gpu_softmax_dropout_forward(a(y), a(yd), a(x), scale, a(pad), causal, B, H, T, S, a(d.mask),
                                   d.p, uint32_t(d.seed), uint32_t(d.seed >> 32));
  };
  t.softmax_backward_masked = [](float* dx, const float* y, const float* dy, const float* mask,
                                 float scale, int R, int S) {
    al_gpu_softmax_backward_masked(a(dx), a(y), a(dy), a(mask), scale, R, S);
  };
  t.layernorm_forward = [](float* y, float* mean, float* rstd, const float* x, const float* g,
                           const float* b, float eps, int R, int C) {
    al_gpu_layernorm_forward(a(y), a(mean), a(rstd), a(x), a(g), a(b), eps, R, C);
  };
  t.layernorm_backward = [](float* dx, float* dg, float* db, const float* dy, const float* x,
                            const float* mean, const float* rstd, const float* g, int R, int C) {
    al_gpu_layernorm_backward(a(dx), a(dg), a(db), a(dy), a(x), a(mean), a(rstd), a(g), R, C);
  };
  t.bias_act_forward = [](float* y, float* pre, const float* x, const float* b, Act act, int R,
                          int C) {
    al_gpu_bias_act_forward(a(y), a(pre), a(x), a(b), int(act), R, C);
  };
  t.bias_act_backward = [](float* dx, float* db, const float* dy, const float* pre, Act act, int R,
                           int C) {
    al_gpu_bias_act_backward(a(dx), a(db), a(dy), a(pre), int(act), R, C);
  };
  t.cross_entropy = [](float* loss, float* dl, const float* logits, const int32_t* tg,
                       float smoothing, int ignore, float gs, int R, int V) {
    al_gpu_cross_entropy(a(loss), a(dl), a(logits), a(tg), smoothing, ignore, gs, R, V);
  };
  t.adam = [](float* p, float* m, float* v, const float* g, long n, float lr, float b1, float b2,
              float eps, float wd,
              int step) { al_gpu_adam(a(p), a(m), a(v), a(g), int(n), lr, b1, b2, eps, wd, step); };
  t.axpy = [](float* y, float alpha, const float* x, long n) {
    al_gpu_axpby(a(y), a(x), int(n), alpha, 1.f);
  };
  t.scale = [](float* y, float alpha, const float* x, long n) {
    al_gpu_axpby(a(y), a(x), int(n), alpha, 0.f);
  };
  // No host-read sum of squares here (deferred): the readback-free step's sumsq_to keeps it on
  // the GPU; a caller that would read it on the host gets an error.
  t.sumsq = [](float*, const float*, long) {
    AL_CHECK(false,
             "the WebGPU backend does not read a gradient norm on the host (readback-free step)");
  };
  t.sum_to = [](float* out, const float* x, long n, double divisor) {
    al_gpu_sum_to(a(out), a(x), int(n), divisor);
  };
  t.sumsq_to = [](float* out, const float* x, long n) { al_gpu_sumsq_to(a(out), a(x), int(n)); };
  t.step_guard = [](float* record, float* state, const float* ss, float max_norm) {
    al_gpu_step_guard(a(record), a(state), a(ss), max_norm);
  };
  t.adam_guarded = [](float* p, float* m, float* v, float* g, long n, float lr, float b1, float b2,
                      float eps, float wd, int step, const float* state) {
    al_gpu_adam_guarded(a(p), a(m), a(v), a(g), int(n), lr, b1, b2, eps, wd, step, a(state));
  };
  t.embedding_forward = [](float* out, const float* W, const int32_t* ids, int R, int C,
                           float scale) {
    al_gpu_embedding_forward(a(out), a(W), a(ids), R, C, scale);
  };
  t.embedding_backward = [](float* dW, const float* dout, const int32_t* ids, int R, int C,
                            float scale) {
    al_gpu_embedding_backward(a(dW), a(dout), a(ids), R, C, scale);
  };
  t.embedding_pe_forward = [](float* out, const float* W, const int32_t* ids, int R, int C,
                              float scale, const float* pe, int L, const DropoutArgs& d) {
    al_gpu_embedding_pe_forward(a(out), a(W), a(ids), R, C, scale, a(pe), L, a(d.mask), d.p,
                                uint32_t(d.seed), uint32_t(d.seed >> 32));
  };
  t.embedding_backward_masked = [](float* dW, const float* dout, const float* mask,
                                   const int32_t* ids, int R, int C, float scale) {
    al_gpu_embedding_backward_masked(a(dW), a(dout), a(mask), a(ids), R, C, scale);
  };
  t.dropout_forward = [](float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                         uint64_t offset) {
    al_gpu_dropout_forward(a(y), a(mask), a(x), int(n), p, uint32_t(seed), uint32_t(seed >> 32),
                           uint32_t(offset), uint32_t(offset >> 32));
  };
  t.dropout_backward = [](float* dx, const float* mask, const float* dy, long n) {
    al_gpu_dropout_backward(a(dx), a(mask), a(dy), int(n));
  };
  t.tanh_bias_forward = [](float* y, const float* x, const float* b, int R, int C) {
    al_gpu_tanh_bias_forward(a(y), a(x), a(b), R, C);
  };
  t.tanh_bias_backward = [](float* dx, float* db, const float* dy, const float* y, int R, int C) {
    al_gpu_tanh_bias_backward(a(dx), a(db), a(dy), a(y), R, C);
  };
  t.gru_gates_forward = [](float* zr, float* rh, const float* xg, const float* hg, const float* hp,
                           int B, int C) {
    al_gpu_gru_gates_forward(a(zr), a(rh), a(xg), a(hg), a(hp), B, C);
  };
  t.gru_gates_backward = [](float* dxg, float* dhp, const float* drh, const float* zr,
                            const float* hp, int B, int C) {
    al_gpu_gru_gates_backward(a(dxg), a(dhp), a(drh), a(zr), a(hp), B, C);
  };
  t.gru_cell_forward = [](float* h, float* cand, const float* xg, const float* hc, const float* zr,
                          const float* hp, int B, int C) {
    al_gpu_gru_cell_forward(a(h), a(cand), a(xg), a(hc), a(zr), a(hp), B, C);
  };
  t.gru_cell_backward = [](float* dxg, float* dhp, const float* dh, const float* zr,
                           const float* cand, const float* hp, int B, int C) {
    al_gpu_gru_cell_backward(a(dxg), a(dhp), a(dh), a(zr), a(cand), a(hp), B, C);
  };
  t.lstm_cell_forward = [](float* h, float* c, float* act, float* tc, const float* pre,
                           const float* cp, int B, int C) {
    al_gpu_lstm_cell_forward(a(h), a(c), a(act), a(tc), a(pre), a(cp), B, C);
  };
  t.lstm_cell_backward = [](float* dpre, float* dcp, const float* dh, const float* dc,
                            const float* act, const float* cp, const float* tc, int B, int C) {
    al_gpu_lstm_cell_backward(a(dpre), a(dcp), a(dh), a(dc), a(act), a(cp), a(tc), B, C);
  };
  t.additive_score_forward = [](float* e, float* tt, const float* k, const float* q, const float* v,
                                int S, int B, int A) {
    al_gpu_additive_score_forward(a(e), a(tt), a(k), a(q), a(v), S, B, A);
  };
  t.additive_score_backward = [](float* dk, float* dq, float* dv, const float* de, const float* tt,
                                 const float* v, int S, int B, int A) {
    al_gpu_additive_score_backward(a(dk), a(dq), a(dv), a(de), a(tt), a(v), S, B, A);
  };
  t.probs_xent = [](float* loss, float* dl, const float* p, const int32_t* tg, float scale, int R,
                    int S) { al_gpu_probs_xent(a(loss), a(dl), a(p), a(tg), scale, R, S); };
  return t;
}

}  // namespace

const KernelTable* webgpu_kernels() {
  if (!al_gpu_present()) return nullptr;
  static const KernelTable table = make_webgpu_table();
  return &table;
}

// Attention's products over batch x heads as one dispatch (the grid along z).
GemmGridFn gemm_grid_entry(const KernelTable& kt) {
  if (std::string_view(kt.name) != "webgpu") return nullptr;
  return [](bool tA, bool tB, int M, int N, int K, float alpha, const float* A, int lda,
            long outerA, long innerA, const float* B, int ldb, long outerB, long innerB, float beta,
            float* C, int ldc, long outerC, long innerC, int outer, int inner) {
    al_gpu_gemm_grid(tA, tB, M, N, K, alpha, a(A), lda, int(outerA), int(innerA), a(B), ldb,
                     int(outerB), int(innerB), beta, a(C), ldc, int(outerC), int(innerC), outer,
                     inner);
  };
}

}  // namespace attnlab

#endif  // __EMSCRIPTEN__
