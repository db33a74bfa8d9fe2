// Conversions shared by the Embind files: checked JS values -> C++ (arrays, token rows, integer
// and number arguments, JSON text) and typed-array copies out of the heap.
//
// Errors never cross wasm as a JS throw. A failure inside a binding is a C++ exception (JsError
// carries the JS error type to raise); `guarded` catches it, records it for JS
// (attnlab_record_error, read by wasm-build/errors.js) and returns an empty value, so the wasm
// function returns normally: its stack is unwound by C++, every destructor runs and nothing the
// call held stays allocated. The JS wrapper that errors.js installs around every bound function
// then throws the recorded TypeError, RangeError or Error.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/check.hpp"
#include "core/json.hpp"

namespace attnlab::bind {

using emscripten::val;

enum class ErrorType : int { Error = 0, Type = 1, Range = 2 };

struct JsError : attnlab::Error {
  JsError(ErrorType t, const std::string& what) : attnlab::Error(what), type(t) {}
  ErrorType type;
};

[[noreturn]] inline void type_error(const std::string& msg) { throw JsError(ErrorType::Type, msg); }
[[noreturn]] inline void range_error(const std::string& msg) {
  throw JsError(ErrorType::Range, msg);
}

// Records the error for the JS wrapper (see wasm-build/errors.js).
void record_error(ErrorType type, const char* message);

template <class R>
R empty_result() {
  if constexpr (std::is_same_v<R, val>)
    return val::undefined();
  else if constexpr (std::is_void_v<R>)
    return;
  else
    return R{};
}

template <class F>
auto guarded(F&& f) -> decltype(f()) {
  using R = decltype(f());
  ErrorType type = ErrorType::Error;
  std::string msg;
  try {
    return f();
  } catch (const JsError& e) {
    type = e.type;
    msg = e.what();
  } catch (const std::bad_alloc&) {
    type = ErrorType::Range;
    msg = "attnlab: out of memory (the engine's heap cannot grow further)";
  } catch (const std::exception& e) {
    msg = e.what();
  } catch (...) {
    msg = "attnlab: unknown C++ exception";
  }
  record_error(type, msg.c_str());
  return empty_result<R>();
}

// The most elements one array argument may hold: 2^28 (1 GiB of floats), below the heap limit.
constexpr double kMaxArrayLength = double(1 << 28);

// The length of a JS Array or typed array (TypeError for anything else, RangeError above max).
size_t array_length(const val& a, const std::string& what, double max_len = kMaxArrayLength);

// Numbers of an Array or typed array as floats; every element must be a finite number.
std::vector<float> to_floats(const val& a, const std::string& what, bool allow_empty = true);
// Bytes: a Uint8Array, an ArrayBuffer, or an Array of integers in [0, 255].
std::vector<uint8_t> to_bytes(const val& a, const std::string& what);
// Bytes of a key-padding mask (0 or 1 each; undefined/null gives an empty mask).
std::vector<uint8_t> to_mask(const val& a, const std::string& what);
// Token ids: integers in [0, 2^31) (range against the vocabulary is the session's check).
std::vector<int32_t> to_ids(const val& a, const std::string& what);
// An array of token-id rows (undefined/null gives no rows).
std::vector<std::vector<int32_t>> to_rows(const val& a, const std::string& what);

// A number argument: finite, within [lo, hi].
double number_arg(const val& x, const std::string& what, double lo, double hi);
// An integer argument within [lo, hi].
int int_arg(const val& x, const std::string& what, int lo, int hi);
// A seed: an integer in [0, 2^53].
uint64_t seed_arg(const val& x, const std::string& what);
// A boolean argument (true/false only; undefined gives `fallback`).
bool bool_arg(const val& x, const std::string& what, bool fallback);
// A string argument of at most max_bytes UTF-8 bytes.
std::string string_arg(const val& x, const std::string& what, size_t max_bytes);
// A JSON object given as text or undefined/null/"" ({}), size and depth checked.
nlohmann::json json_arg(const val& x, const std::string& what);

// Option fields of an options object (undefined/null object or field: the fallback).
double num_field(const val& o, const std::string& fn, const char* key, double fallback, double lo,
                 double hi);
int int_field(const val& o, const std::string& fn, const char* key, int fallback, int lo, int hi);

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
val rows_to_js(const std::vector<std::vector<int32_t>>& rows);

}  // namespace attnlab::bind
