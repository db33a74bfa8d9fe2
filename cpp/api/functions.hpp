// Plain-C++ entry points for the guide's small computations beside attention(): a softmax of
// given scores, the sinusoidal positional-encoding table, and content addressing by cosine
// similarity. No Embind here (tested natively); each checks its arguments and throws
// attnlab::Error with one readable line.
#pragma once
#include <vector>

namespace attnlab::api {

// y[r,:] = softmax(x[r,:] / temperature) over R rows of width C (x is [R,C]).
std::vector<float> softmax(const std::vector<float>& x, int R, int C, float temperature = 1.f);

// Vaswani et al. 2017, sec. 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/C)),
// PE(pos, 2i+1) = cos(pos / 10000^(2i/C)); the table is [L,C].
std::vector<float> positional_encoding(int L, int C);

// Graves et al. 2014 (Neural Turing Machines), eqs. 5-6, content addressing:
//   K(k, M_i) = k.M_i / (|k| |M_i|),   w_i = exp(beta K(k, M_i)) / sum_j exp(beta K(k, M_j))
struct ContentAddress {
  std::vector<float> similarity;  // [N] cosine similarity of the key with each memory row
  std::vector<float> weights;     // [N] softmax of beta * similarity
};
// memory [N,W] (N rows of width W), key [W], sharpness beta >= 0.
ContentAddress content_address(const std::vector<float>& memory, const std::vector<float>& key,
                               int N, int W, float beta);

}  // namespace attnlab::api
