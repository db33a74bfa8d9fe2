// Softmax cross-entropy with label smoothing (Szegedy et al. 2016; the paper uses ε = 0.1) and
// an ignored padding id, averaged over the non-ignored rows:
//   loss = (1/N) Σ_r -Σ_v q_rv log softmax(z_r)_v,  q = (1-ε) onehot + ε/V
// Shapes: logits [R,V] (backend), targets [R] (host). dlogits = (softmax - q) / N.
#pragma once
#include <cstdint>

#include "layers/context.hpp"

namespace attnlab {

struct LossResult {
  double loss = 0;           // mean over counted rows
  long count = 0;            // rows whose target != ignore
  float* dlogits = nullptr;  // [R,V] in the workspace
};

LossResult cross_entropy_loss(const Ctx& c, const float* logits, const int32_t* targets,
                              float smoothing, int ignore_index, int R, int V);

}  // namespace attnlab
