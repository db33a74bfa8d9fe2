// Layer normalisation (see layernorm.hpp).
#include "layers/layernorm.hpp"

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

void LayerNorm::backward(const Ctx& c, const LayerNormCache& cache, float* dx, const float* dy,
                         int R) const {
  float* tmp = c.ws.floats(size_t(R) * C);  // [R,C] the kernel assigns; we accumulate
  c.kt.layernorm_backward(tmp, c.P.grad(gamma), c.P.grad(beta), dy, cache.x, cache.mean, cache.rstd,
                          c.P.val(gamma), R, C);
  c.kt.axpy(dx, 1.f, tmp, long(R) * C);
}

}  // namespace attnlab
