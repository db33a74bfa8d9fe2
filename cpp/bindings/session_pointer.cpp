// Embind registration of pointer-network sessions (cpp/api/session_pointer.hpp): point sets in
// and pointer distributions out as typed arrays, C++ errors as JS Errors.
#include "api/session_pointer.hpp"

#include <emscripten/bind.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "bindings/convert.hpp"
#include "core/check.hpp"

using emscripten::val;
using namespace attnlab::bind;
using nlohmann::json;

namespace {

class JsPointerSession {
 public:
  explicit JsPointerSession(std::unique_ptr<attnlab::api::PointerSession> s) : s_(std::move(s)) {}

  static JsPointerSession* create(val config) {
    return guarded([&] {
      return new JsPointerSession(
          attnlab::api::PointerSession::create(json_arg(config, "session config")));
    });
  }
  static JsPointerSession* load(val bytes, val overrides) {
    return guarded([&] {
      return new JsPointerSession(attnlab::api::PointerSession::load(
          to_bytes(bytes, "load: bytes"), json_arg(overrides, "load overrides")));
    });
  }

  std::string info() const {
    return guarded([&] { return s_->info().dump(); });
  }
  val train(val steps) {
    return guarded([&] {
      const attnlab::api::PointerChunk c = s_->train(int_arg(steps, "train: steps", 1, 100000));
      val o = val::object();
      o.set("losses", to_f32(c.losses));
      o.set("tokens", double(c.points));
      o.set("step", c.step);
      o.set("lr", 0);
      o.set("gradNorm", 0);
      return o;
    });
  }
  std::string evaluate(val samples, val seed) {
    return guarded([&] {
      return s_
          ->evaluate(int_arg(samples, "evaluate: samples", 1, 100000),
                     seed_arg(seed, "evaluate: seed"))
          .dump();
    });
  }
  // decode(x [n*dim], n) -> {n, order, probs [steps, n+1]}
  val decode(val x, val n) {
    return guarded([&] {
      const attnlab::api::PointerDecode d =
          s_->decode(to_floats(x, "decode: points", false), int_arg(n, "decode: n", 1, 1000));
      val o = val::object();
      o.set("n", d.n);
      o.set("order", to_array(d.order));
      o.set("probs", to_f32(d.probs));
      o.set("steps", int(d.order.size()) + 1);
      return o;
    });
  }
  val examples(val count, val n, val split_arg, val seed) {
    return guarded([&] {
      const std::string split = string_arg(split_arg, "examples: split", 16);
      if (split != "train" && split != "test")
        range_error("examples: split must be 'train' or 'test'");
      const attnlab::api::PointerExamples e = s_->examples(
          int_arg(count, "examples: count", 1, 10000), int_arg(n, "examples: n", 0, 1000),
          split == "train" ? attnlab::Split::Train : attnlab::Split::Test,
          seed_arg(seed, "examples: seed"));
      val o = val::object();
      o.set("n", e.n);
      o.set("dim", e.dim);
      o.set("x", to_f32(e.x));
      val t = val::array();
      for (size_t i = 0; i < e.target.size(); ++i) t.set(i, to_array(e.target[i]));
      o.set("target", t);
      return o;
    });
  }
  val save() {
    return guarded([&] { return to_u8(s_->save()); });
  }

 private:
  std::unique_ptr<attnlab::api::PointerSession> s_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_pointer_session) {
  emscripten::class_<JsPointerSession>("PointerSession")
      .class_function("create", &JsPointerSession::create, emscripten::allow_raw_pointers())
      .class_function("load", &JsPointerSession::load, emscripten::allow_raw_pointers())
      .function("info", &JsPointerSession::info)
      .function("train", &JsPointerSession::train)
      .function("evaluate", &JsPointerSession::evaluate)
      .function("decode", &JsPointerSession::decode)
      .function("examples", &JsPointerSession::examples)
      .function("save", &JsPointerSession::save);
}
