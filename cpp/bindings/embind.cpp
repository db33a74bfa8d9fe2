// Embind registration only: converts between JS values and the plain-C++ API in cpp/api/,
// and turns every C++ exception into a JS Error carrying its message (the module stays usable).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <exception>
#include <string>
#include <vector>

#include "api/standalone.hpp"

using emscripten::val;

namespace {

[[noreturn]] void throw_js(const std::string& msg) { val::global("Error").new_(msg).throw_(); }

template <class F>
val guarded(F&& f) {
  std::string msg;
  try {
    return f();
  } catch (const std::exception& e) {
    msg = e.what();
  } catch (...) {
    msg = "attnlab: unknown C++ exception";
  }
  throw_js(msg);  // thrown after the C++ exception is destroyed
}

template <class T>
std::vector<T> to_vector(const val& a, const char* what) {
  if (a.isUndefined() || a.isNull()) return {};
  if (!a["length"].isNumber()) throw_js(std::string(what) + ": expected an array or typed array");
  return emscripten::convertJSArrayToNumberVector<T>(a);
}

val to_f32(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

int int_field(const val& o, const char* key, int fallback) {
  val x = o[key];
  if (x.isUndefined()) return fallback;
  if (!x.isNumber()) throw_js(std::string("attention: option '") + key + "' must be a number");
  return x.as<int>();
}

// attention(q, k, v, {B, H, T, S, Dk, Dv, causal, keyPad}) -> {out, weights}
val attention(val q, val k, val v, val opts) {
  return guarded([&] {
    attnlab::api::AttentionDims d;
    if (opts.isUndefined() || opts.isNull()) throw_js("attention: options object is required");
    d.B = int_field(opts, "B", 1);
    d.H = int_field(opts, "H", 1);
    d.T = int_field(opts, "T", 0);
    d.S = int_field(opts, "S", d.T);
    d.Dk = int_field(opts, "Dk", 0);
    d.Dv = int_field(opts, "Dv", d.Dk);
    d.causal = opts["causal"].isTrue();
    auto r = attnlab::api::attention(to_vector<float>(q, "q"), to_vector<float>(k, "k"),
                                     to_vector<float>(v, "v"), to_vector<uint8_t>(opts["keyPad"], "keyPad"),
                                     d);
    val res = val::object();
    res.set("out", to_f32(r.out));
    res.set("weights", to_f32(r.weights));
    return res;
  });
}

val info() {
  val o = val::object();
  o.set("simd", val(true));
#ifdef __EMSCRIPTEN_PTHREADS__
  o.set("threads", val(true));
#else
  o.set("threads", val(false));
#endif
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("attention", &attention);
  emscripten::function("info", &info);
}
