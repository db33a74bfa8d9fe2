// Masked attention softmax on the GPU, one warp per row of S scores (see KernelTable):
// forward y = softmax(scale * x) with key padding and causal masks, fully masked rows -> 0;
// backward dx = scale * y * (dy - sum_j dy_j y_j). x/y and dx/dy may alias.
#pragma once
#include <cstdint>

namespace attnlab::cuda {

void softmax_forward(float* y, const float* x, float scale, const uint8_t* key_pad, bool causal,
                     int B, int H, int T, int S);
void softmax_backward(float* dx, const float* y, const float* dy, float scale, int R, int S);

}  // namespace attnlab::cuda
