// Embind registration of the guide's small computations (cpp/api/functions.hpp): softmax of
// given scores, the positional-encoding table, NTM content addressing.
#include "api/functions.hpp"

#include <emscripten/bind.h>

#include <algorithm>

#include "bindings/convert.hpp"

using emscripten::val;
using namespace attnlab::bind;

namespace {

// softmax(scores, {rows, cols, temperature}) -> Float32Array [rows, cols]
val softmax(val scores, val opts) {
  return guarded([&] {
    std::vector<float> x = to_floats(scores, "softmax: scores", false);
    if (x.empty()) range_error("softmax: no scores");
    const int n = int(std::min<size_t>(x.size(), 1 << 30));
    const int cols = int_field(opts, "softmax", "cols", n, 1, 1 << 30);
    const int rows = int_field(opts, "softmax", "rows", std::max(1, n / cols), 1, 1 << 30);
    const float t = float(num_field(opts, "softmax", "temperature", 1.0, 1e-30, 1e30));
    return to_f32(attnlab::api::softmax(x, rows, cols, t));
  });
}

// positionalEncoding(L, C) -> Float32Array [L, C]
val positional_encoding(val L, val C) {
  return guarded([&] {
    return to_f32(
        attnlab::api::positional_encoding(int_arg(L, "positionalEncoding: L", 1, 1 << 24),
                                          int_arg(C, "positionalEncoding: C", 1, 1 << 24)));
  });
}

// contentAddress(memory [N*W], key [W], beta) -> {similarity [N], weights [N]}
val content_address(val memory, val key, val beta) {
  return guarded([&] {
    std::vector<float> m = to_floats(memory, "contentAddress: memory", false);
    std::vector<float> k = to_floats(key, "contentAddress: key", false);
    const double b = beta.isUndefined() ? 1.0 : number_arg(beta, "contentAddress: beta", 0, 1e30);
    const size_t W = k.size();
    if (W == 0) range_error("contentAddress: the key is empty");
    if (m.size() % W != 0)
      range_error("contentAddress: memory length " + std::to_string(m.size()) +
                  " is not a multiple of the key length " + std::to_string(W));
    auto r = attnlab::api::content_address(m, k, int(m.size() / W), int(W), float(b));
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
