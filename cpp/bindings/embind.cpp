// Embind registration only: converts between JS values and the plain-C++ API in cpp/api/,
// and turns every C++ exception into a JS Error carrying its message (the module stays usable).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <thread>

#include "api/standalone.hpp"
#include "bindings/convert.hpp"
#include "kernels/kernels.hpp"

using emscripten::val;
using namespace attnlab::bind;

namespace {

// attention(q, k, v, {B, H, T, S, Dk, Dv, causal, keyPad}) -> {out, weights}
val attention(val q, val k, val v, val opts) {
  return guarded([&] {
    attnlab::api::AttentionDims d;
    if (opts.isUndefined() || opts.isNull()) type_error("attention: options object is required");
    constexpr int kMaxDim = 1 << 24;
    d.B = int_field(opts, "attention", "B", 1, 1, kMaxDim);
    d.H = int_field(opts, "attention", "H", 1, 1, kMaxDim);
    d.T = int_field(opts, "attention", "T", 0, 1, kMaxDim);
    d.S = int_field(opts, "attention", "S", d.T, 1, kMaxDim);
    d.Dk = int_field(opts, "attention", "Dk", 0, 1, kMaxDim);
    d.Dv = int_field(opts, "attention", "Dv", d.Dk, 1, kMaxDim);
    d.causal = bool_arg(opts["causal"], "attention: option 'causal'", false);
    auto r = attnlab::api::attention(
        to_floats(q, "attention: q", false), to_floats(k, "attention: k", false),
        to_floats(v, "attention: v", false), to_mask(opts["keyPad"], "attention: keyPad"), d);
    val res = val::object();
    res.set("out", to_f32(r.out));
    res.set("weights", to_f32(r.weights));
    return res;
  });
}

// What this module is: SIMD always; pthreads and their count in the threaded build; the heap.
val info() {
  val o = val::object();
  o.set("simd", val(true));
#ifdef __EMSCRIPTEN_PTHREADS__
  o.set("threads", val(true));
  o.set("build", val(std::string("wasm-mt")));
  o.set("hardwareThreads", val(int(std::thread::hardware_concurrency())));
#else
  o.set("threads", val(false));
  o.set("build", val(std::string("wasm")));
  o.set("hardwareThreads", val(1));
#endif
  o.set("kernelThreads", val(attnlab::num_threads()));
  o.set("heapBytes", val(double(emscripten_get_heap_size())));
  o.set("maxHeapBytes", val(double(emscripten_get_heap_max())));
  o.set("heapUsedBytes", val(double(mallinfo().uordblks)));  // bytes malloc has handed out
  return o;
}

// Threads the CPU kernels use (the pthread build; the single-thread build stays at 1).
int set_threads(val n) {
  return guarded([&] {
    attnlab::set_num_threads(int_arg(n, "setThreads: n", -1024, 1024));
    return attnlab::num_threads();
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("setThreads", &set_threads);
  emscripten::function("attention", &attention);
  emscripten::function("info", &info);
}
