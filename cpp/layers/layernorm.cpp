// Layer normalisation (see layernorm.hpp).
#include "layers/layernorm.hpp"

#include "core/check.hpp"

namespace attnlab {

void LayerNorm::declare(ParamArena& P, const std::string& prefix, int C_) {
  C = C_;
  gamma = P.add(prefix + ".weight", {C}, Init::Ones);
  beta = P.add(prefix + ".bias", {C}, Init::Zeros);
}

void LayerNorm::forward(const Ctx& c, LayerNormCache& cache, float* y, const float* x,
                        int R) const {
  cache.x = x;
  cache.mean = c.ws.floats(size_t(R));
  cache.rstd = c.ws.floats(size_t(R));
  c.kt.layernorm_forward(y, cache.mean, cache.rstd, x, c.P.val(gamma), c.P.val(beta), eps, R, C);
}

void LayerNorm::add_forward(const Ctx& c, LayerNormCache& cache, float* y, float* s, const float* x,
                            const float* r, int R, const DropoutArgs& drop) const {
  if (c.kt.add_layernorm_forward) {
    cache.x = s;
    cache.mean = c.ws.floats(size_t(R));
    cache.rstd = c.ws.floats(size_t(R));
    c.kt.add_layernorm_forward(y, s, cache.mean, cache.rstd, x, r, c.P.val(gamma), c.P.val(beta),
                               eps, R, C, drop);
    return;
  }
  AL_CHECK(!drop.mask, "a dropout inside add_forward needs the table's add_layernorm_forward");
  c.kt.copy(s, x, size_t(R) * C * sizeof(float));
  c.kt.axpy(s, 1.f, r, long(R) * C);
  forward(c, cache, y, s, R);
}

void LayerNorm::backward(const Ctx& c, const LayerNormCache& cache, float* dx, const float* dy,
                         int R, bool accumulate) const {
  if (c.kt.layernorm_backward_fused) {
    c.kt.layernorm_backward_fused(dx, nullptr, c.P.grad(gamma), c.P.grad(beta), dy, nullptr,
                                  cache.x, cache.mean, cache.rstd, c.P.val(gamma), accumulate, R, C,
                                  nullptr);
    return;
  }
  if (!accumulate) {  // the kernel assigns dx
    c.kt.layernorm_backward(dx, c.P.grad(gamma), c.P.grad(beta), dy, cache.x, cache.mean,
                            cache.rstd, c.P.val(gamma), R, C);
    return;
  }
  float* tmp = c.ws.floats(size_t(R) * C);  // [R,C] the kernel assigns; we accumulate
  c.kt.layernorm_backward(tmp, c.P.grad(gamma), c.P.grad(beta), dy, cache.x, cache.mean, cache.rstd,
                          c.P.val(gamma), R, C);
  c.kt.axpy(dx, 1.f, tmp, long(R) * C);
}

}  // namespace attnlab
