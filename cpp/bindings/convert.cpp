// Checked conversions for the Embind files (see convert.hpp). Element checks run in JS (one
// loop, no exception can leave it) before anything is copied, so a conversion never throws a JS
// exception through wasm frames.
#include "bindings/convert.hpp"

#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

// The two EM_JS bodies are JavaScript: clang-format would split its operators (!==).
// clang-format off
// Records a binding's error for wasm-build/errors.js, which throws it once the call returns.
EM_JS(void, attnlab_js_record_error, (int type, const char* message), {
  Module['__attnlabError'] = {type : type, message : UTF8ToString(message)};
});

// Checks the elements of an Array or (non-BigInt) typed array. mode 0: finite numbers (a float
// typed array passes here and is checked after the copy);
// mode 1: integers in [0, 2^31); mode 2: integers in [0, 255]. Returns -1 when all pass, else
// 4 * index + 1 for an element that is not a number, 4 * index + 2 for one out of range.
EM_JS(double, attnlab_js_check_elements, (emscripten::EM_VAL handle, int mode), {
  try {
    var a = Emval.toValue(handle);
    if (typeof BigInt64Array !== 'undefined' && (a instanceof BigInt64Array || a instanceof BigUint64Array))
      return a.length ? 1 : -1;
    // A float typed array holds only numbers: its finiteness is checked after the copy, in C++.
    if (mode == 0 && (a instanceof Float32Array || a instanceof Float64Array)) return -1;
    var hi = mode == 1 ? 2147483648 : 256;
    for (var i = 0, n = a.length; i < n; ++i) {
      var x = a[i];
      if (typeof x !== 'number') return 4 * i + 1;
      if (mode == 0) {
        if (!isFinite(x)) return 4 * i + 2;
      } else if (!(Math.floor(x) === x && x >= 0 && x < hi)) {
        return 4 * i + 2;
      }
    }
    return -1;
  } catch (e) {
    return 1;
  }
});
// clang-format on

namespace attnlab::bind {

namespace {

bool is_typed_array(const val& a) {
  return val::global("ArrayBuffer").call<bool>("isView", a) && a["BYTES_PER_ELEMENT"].isNumber();
}

std::string at(const std::string& what, double index) {
  return what + "[" + std::to_string(static_cast<long long>(index)) + "]";
}

// Fails with the right error type when an element check found a bad element.
void check_elements(const val& a, const std::string& what, int mode) {
  const double r = attnlab_js_check_elements(a.as_handle(), mode);
  if (r < 0) return;
  const double index = std::floor(r / 4);
  const int kind = int(r - 4 * index);
  if (kind == 1) type_error(at(what, index) + " is not a number");
  if (mode == 0) range_error(at(what, index) + " is not a finite number");
  range_error(at(what, index) + (mode == 1 ? " is not an integer in [0, 2^31)"
                                           : " is not a byte (an integer in [0, 255])"));
}

std::string type_name(const val& x) { return x.typeOf().as<std::string>(); }

// A number as JS would print it (1.5, -1, 4294967299, 1e+308, NaN).
std::string num(double d) {
  std::ostringstream o;
  o << std::setprecision(17) << d;
  return o.str();
}

}  // namespace

void record_error(ErrorType type, const char* message) {
  attnlab_js_record_error(int(type), message);
}

size_t array_length(const val& a, const std::string& what, double max_len) {
  if (!a.isArray() && !is_typed_array(a))
    type_error(what + ": expected an array or typed array, got " +
               (a.isNull() ? std::string("null") : type_name(a)));
  const double n = a["length"].as<double>();
  if (!(n >= 0 && n <= max_len))
    range_error(what + ": " + std::to_string(static_cast<long long>(n)) +
                " elements, more than the limit of " +
                std::to_string(static_cast<long long>(max_len)));
  return size_t(n);
}

std::vector<float> to_floats(const val& a, const std::string& what, bool allow_empty) {
  if (allow_empty && (a.isUndefined() || a.isNull())) return {};
  const size_t n = array_length(a, what);
  check_elements(a, what, 0);
  std::vector<float> v = emscripten::convertJSArrayToNumberVector<float>(a);
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) range_error(at(what, double(i)) + " is not a finite 32-bit float");
  return v;
}

std::vector<uint8_t> to_bytes(const val& a, const std::string& what) {
  if (a.instanceof (val::global("ArrayBuffer")))
    return to_bytes(val::global("Uint8Array").new_(a), what);
  if (a.instanceof (val::global("Uint8Array"))) {
    array_length(a, what, double(std::numeric_limits<int32_t>::max()));
    return emscripten::convertJSArrayToNumberVector<uint8_t>(a);
  }
  array_length(a, what);
  check_elements(a, what, 2);
  return emscripten::convertJSArrayToNumberVector<uint8_t>(a);
}

std::vector<uint8_t> to_mask(const val& a, const std::string& what) {
  if (a.isUndefined() || a.isNull()) return {};
  std::vector<uint8_t> m = to_bytes(a, what);
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i] > 1) range_error(at(what, double(i)) + " must be 0 or 1");
  return m;
}

std::vector<int32_t> to_ids(const val& a, const std::string& what) {
  array_length(a, what, double(1 << 20));
  check_elements(a, what, 1);
  return emscripten::convertJSArrayToNumberVector<int32_t>(a);
}

std::vector<std::vector<int32_t>> to_rows(const val& a, const std::string& what) {
  std::vector<std::vector<int32_t>> rows;
  if (a.isUndefined() || a.isNull()) return rows;
  if (!a.isArray()) type_error(what + ": expected an array of rows (arrays of token ids)");
  const size_t n = array_length(a, what, double(1 << 16));
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) rows.push_back(to_ids(a[i], what + "[" + std::to_string(i) + "]"));
  return rows;
}

double number_arg(const val& x, const std::string& what, double lo, double hi) {
  if (!x.isNumber()) type_error(what + " must be a number, got " + type_name(x));
  const double d = x.as<double>();
  if (!(d >= lo && d <= hi))
    range_error(what + " must be in [" + num(lo) + ", " + num(hi) + "], got " + num(d));
  return d;
}

int int_arg(const val& x, const std::string& what, int lo, int hi) {
  if (!x.isNumber()) type_error(what + " must be an integer, got " + type_name(x));
  const double d = x.as<double>();
  if (!(d >= lo && d <= hi && std::floor(d) == d))
    range_error(what + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got " + num(d));
  return int(d);
}

uint64_t seed_arg(const val& x, const std::string& what) {
  if (!x.isNumber()) type_error(what + " must be an integer, got " + type_name(x));
  const double d = x.as<double>();
  if (!(d >= 0 && d <= 9007199254740992.0 && std::floor(d) == d))
    range_error(what + " must be an integer in [0, 2^53], got " + num(d));
  return uint64_t(d);
}

bool bool_arg(const val& x, const std::string& what, bool fallback) {
  if (x.isUndefined()) return fallback;
  if (x.isTrue()) return true;
  if (x.isFalse()) return false;
  type_error(what + " must be true or false, got " + type_name(x));
}

std::string string_arg(const val& x, const std::string& what, size_t max_bytes) {
  if (!x.isString())
    type_error(what + " must be a string, got " +
               (x.isNull() ? std::string("null") : type_name(x)));
  // A UTF-16 code unit becomes at most 3 UTF-8 bytes: refuse before the copy into the heap.
  const double units = x["length"].as<double>();
  if (units > double(max_bytes))
    range_error(what + ": " + std::to_string(static_cast<long long>(units)) +
                " characters, more than the limit of " + std::to_string(max_bytes));
  std::string s = x.as<std::string>();
  if (s.size() > max_bytes)
    range_error(what + ": " + std::to_string(s.size()) + " bytes, more than the limit of " +
                std::to_string(max_bytes));
  return s;
}

nlohmann::json json_arg(const val& x, const std::string& what) {
  if (x.isUndefined() || x.isNull()) return nlohmann::json::object();
  return parse_json_object(string_arg(x, what, kMaxJsonBytes), what, true);
}

namespace {

// The field `key` of an options object; undefined when the object or the field is absent.
val option(const val& o, const std::string& fn, const char* key) {
  if (o.isUndefined() || o.isNull()) return val::undefined();
  if (type_name(o) != "object") type_error(fn + ": options must be an object");
  return o[key];
}

}  // namespace

double num_field(const val& o, const std::string& fn, const char* key, double fallback, double lo,
                 double hi) {
  const val x = option(o, fn, key);
  return x.isUndefined() ? fallback : number_arg(x, fn + ": option '" + key + "'", lo, hi);
}

int int_field(const val& o, const std::string& fn, const char* key, int fallback, int lo, int hi) {
  const val x = option(o, fn, key);
  return x.isUndefined() ? fallback : int_arg(x, fn + ": option '" + key + "'", lo, hi);
}

val rows_to_js(const std::vector<std::vector<int32_t>>& rows) {
  val a = val::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    val r = val::array();
    for (size_t j = 0; j < rows[i].size(); ++j) r.set(j, rows[i][j]);
    a.set(i, r);
  }
  return a;
}

}  // namespace attnlab::bind
