// Softmax cross-entropy with label smoothing and an ignore index on the GPU, one block per row
// of V logits (same contract as KernelTable::cross_entropy): per-row loss [R] and
// dlogits [R,V] = grad_scale * (softmax - q), q = (1-eps) onehot + eps/V; dlogits may alias logits.
#pragma once
#include <cstdint>

namespace attnlab::cuda {

void cross_entropy(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                   float smoothing, int ignore_index, float grad_scale, int R, int V);

}  // namespace attnlab::cuda
