// Embind registration of the guide's small computations (cpp/api/functions.hpp): softmax of
// given scores, the positional-encoding table, NTM content addressing.
#include <emscripten/bind.h>

#include <algorithm>

#include "api/functions.hpp"
#include "bindings/convert.hpp"

using emscripten::val;
using namespace attnlab::bind;

namespace {

// softmax(scores, {rows, cols, temperature}) -> Float32Array [rows, cols]
val softmax(val scores, val opts) {
  return guarded([&] {
    std::vector<float> x = to_vector<float>(scores, "softmax: scores");
    const int cols = int_field(opts, "softmax", "cols", int(x.size()));
    const int rows = int_field(opts, "softmax", "rows", cols > 0 ? std::max(1, int(x.size()) / cols) : 1);
    const float t = float(num_field(opts, "softmax", "temperature", 1.0));
    return to_f32(attnlab::api::softmax(x, rows, cols, t));
  });
}

// positionalEncoding(L, C) -> Float32Array [L, C]
val positional_encoding(int L, int C) {
  return guarded([&] { return to_f32(attnlab::api::positional_encoding(L, C)); });
}

// contentAddress(memory [N*W], key [W], beta) -> {similarity [N], weights [N]}
val content_address(val memory, val key, double beta) {
  return guarded([&] {
    std::vector<float> m = to_vector<float>(memory, "contentAddress: memory");
    std::vector<float> k = to_vector<float>(key, "contentAddress: key");
    const int W = int(k.size());
    const int N = W > 0 ? int(m.size()) / W : 0;
    if (W > 0 && m.size() % W != 0)
      throw_js("contentAddress: memory length " + std::to_string(m.size()) +
               " is not a multiple of the key length " + std::to_string(W));
    auto r = attnlab::api::content_address(m, k, N, W, float(beta));
    val o = val::object();
    o.set("similarity", to_f32(r.similarity));
    o.set("weights", to_f32(r.weights));
    return o;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_functions) {
  emscripten::function("softmax", &softmax);
  emscripten::function("positionalEncoding", &positional_encoding);
  emscripten::function("contentAddress", &content_address);
}
