// The readback-free step entries (kernels.hpp: sum_to, sumsq_to, step_guard, adam_guarded) for
// a table whose memory the host can read (CPU, CUDA): values go through the table's own
// download and upload (plain copies on the CPU), and the clip and the Adam step are the table's
// scale and adam, so a step taken through these entries is the direct step bit for bit
// (tests/cpp/test_deferred_step.cpp). The WebGPU table has its own, on the GPU.
// Use: readback_free_entries<my_table>(t), where my_table() returns the table being filled.
#pragma once
#include <cmath>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnlab {

template <const KernelTable& (*Get)()>
struct ReadbackFree {
  static float read1(const float* at) {
    float v = 0.f;
    Get().download(&v, at, sizeof v);
    return v;
  }
  static void write(float* at, const float* v, int n) {
    Get().upload(at, v, size_t(n) * sizeof(float));
  }

  static void sum_to(float* out, const float* x, long n, double divisor) {
    std::vector<float> h(size_t(n > 0 ? n : 0));
    if (n > 0) Get().download(h.data(), x, h.size() * sizeof(float));
    double s = 0;
    for (float f : h) s += f;
    const float v = divisor != 0 ? float(s / divisor) : 0.f;
    write(out, &v, 1);
  }

  static void sumsq_to(float* out, const float* x, long n) {
    float ss = 0.f;
    Get().sumsq(&ss, x, n);
    write(out, &ss, 1);
  }

  static void step_guard(float* record, float* state, const float* sumsq, float max_norm) {
    const float loss = read1(record);
    const float norm = std::sqrt(read1(sumsq));
    float st[2] = {read1(state), 1.f};
    if (!std::isfinite(loss) || !std::isfinite(norm)) st[0] = 1.f;
    if (max_norm > 0.f && norm > max_norm) st[1] = max_norm / (norm + 1e-6f);
    write(record + 1, &norm, 1);
    write(state, st, 2);
  }

  static void adam_guarded(float* p, float* m, float* v, float* g, long n, float lr, float beta1,
                           float beta2, float eps, float wd, int t, const float* state) {
    float st[2];
    Get().download(st, state, sizeof st);
    if (st[0] != 0.f) return;
    if (st[1] != 1.f) Get().scale(g, st[1], g, n);
    Get().adam(p, m, v, g, n, lr, beta1, beta2, eps, wd, t);
  }
};

template <const KernelTable& (*Get)()>
void readback_free_entries(KernelTable& t) {
  using R = ReadbackFree<Get>;
  t.sum_to = R::sum_to;
  t.sumsq_to = R::sumsq_to;
  t.step_guard = R::step_guard;
  t.adam_guarded = R::adam_guarded;
}

}  // namespace attnlab
