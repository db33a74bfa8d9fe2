// Conversions shared by the Embind files: JS arrays <-> std::vector, typed-array copies out of
// the heap, checked option fields, and `guarded`, which turns every C++ exception into a JS
// Error carrying its message (the module stays usable afterwards).
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace attnlab::bind {

using emscripten::val;

[[noreturn]] inline void throw_js(const std::string& msg) {
  val::global("Error").new_(msg).throw_();
}

template <class F>
auto guarded(F&& f) -> decltype(f()) {
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

// A copy (not a view) so that later heap growth cannot detach it.
inline val to_f32(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_i32(const std::vector<int32_t>& v) {
  return val::global("Int32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_u8(const std::vector<uint8_t>& v) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_array(const std::vector<int>& v) {
  val a = val::array();
  for (size_t i = 0; i < v.size(); ++i) a.set(i, v[i]);
  return a;
}

inline double num_field(const val& o, const char* fn, const char* key, double fallback) {
  if (o.isUndefined() || o.isNull()) return fallback;
  val x = o[key];
  if (x.isUndefined()) return fallback;
  if (!x.isNumber()) throw_js(std::string(fn) + ": option '" + key + "' must be a number");
  return x.as<double>();
}
inline int int_field(const val& o, const char* fn, const char* key, int fallback) {
  return int(num_field(o, fn, key, fallback));
}

}  // namespace attnlab::bind
