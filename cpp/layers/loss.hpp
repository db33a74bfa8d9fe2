// Softmax cross-entropy with label smoothing (Szegedy et al. 2016; the paper uses ε = 0.1) and
// an ignored padding id, averaged over the non-ignored rows:
//   loss = (1/N) Σ_r -Σ_v q_rv log softmax(z_r)_v,  q = (1-ε) onehot + ε/V
// Shapes: logits [R,V] (backend), targets [R] (host). dlogits = (softmax - q) / N.
#pragma once
#include <cstdint>

#include "layers/context.hpp"

namespace attnlab {

struct LossResult {
  double loss = 0;           // mean over counted rows (NaN in a readback-free step: the mean
                             // went to P.loss_slot() on the backend)
  long count = 0;            // rows whose target != ignore
  float* dlogits = nullptr;  // [R,V] in the workspace
};

LossResult cross_entropy_loss(const Ctx& c, const float* logits, const int32_t* targets,
                              float smoothing, int ignore_index, int R, int V);

// The mean of `count` rows' losses loss[0..R) (backend memory): read and summed on the host, or,
// when P has a loss slot (a readback-free step), reduced into it on the backend (returns NaN).
double mean_loss(const KernelTable& kt, const ParamArena& P, const float* loss, int R, long count);

}  // namespace attnlab
