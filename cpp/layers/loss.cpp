// Cross-entropy with label smoothing and an ignored id (see loss.hpp).
#include "layers/loss.hpp"

#include <cmath>
#include <vector>

#include "core/check.hpp"

namespace attnlab {

LossResult cross_entropy_loss(const Ctx& c, const float* logits, const int32_t* targets,
                              float smoothing, int ignore_index, int R, int V) {
  LossResult res;
  for (int r = 0; r < R; ++r) {
    if (targets[r] == ignore_index) continue;
    AL_CHECK(targets[r] >= 0 && targets[r] < V,
             "target id " << targets[r] << " out of range [0, " << V << ")");
    ++res.count;
  }
  int32_t* t = c.ws.ints(size_t(R));
  c.kt.upload(t, targets, size_t(R) * sizeof(int32_t));
  float* loss = c.ws.floats(size_t(R));
  res.dlogits = c.ws.floats(size_t(R) * V);
  const float scale = res.count ? 1.f / float(res.count) : 0.f;
  c.kt.cross_entropy(loss, res.dlogits, logits, t, smoothing, ignore_index, scale, R, V);
  res.loss = mean_loss(c.kt, c.P, loss, R, res.count);
  return res;
}

double mean_loss(const KernelTable& kt, const ParamArena& P, const float* loss, int R, long count) {
  if (float* slot = P.loss_slot()) {
    kt.sum_to(slot, loss, R, double(count));
    return std::nan("");
  }
  std::vector<float> h(static_cast<size_t>(R));
  kt.download(h.data(), loss, size_t(R) * sizeof(float));
  double sum = 0;
  for (float l : h) sum += l;
  return count ? sum / double(count) : 0.0;
}

}  // namespace attnlab
