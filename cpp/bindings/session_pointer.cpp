// Embind registration of pointer-network sessions (cpp/api/session_pointer.hpp): point sets in
// and pointer distributions out as typed arrays, C++ errors as JS Errors.
#include <emscripten/bind.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "api/session_pointer.hpp"
#include "bindings/convert.hpp"
#include "core/check.hpp"

using emscripten::val;
using namespace attnlab::bind;
using nlohmann::json;

namespace {

json parse_json(const std::string& s, const char* what) {
  json j = json::parse(s.empty() ? "{}" : s, nullptr, false);
  if (j.is_discarded()) throw attnlab::Error(std::string(what) + ": not valid JSON");
  return j;
}

class JsPointerSession {
 public:
  explicit JsPointerSession(std::unique_ptr<attnlab::api::PointerSession> s) : s_(std::move(s)) {}

  static JsPointerSession* create(const std::string& config) {
    return guarded([&] {
      return new JsPointerSession(attnlab::api::PointerSession::create(parse_json(config, "session config")));
    });
  }
  static JsPointerSession* load(val bytes, const std::string& overrides) {
    return guarded([&] {
      return new JsPointerSession(attnlab::api::PointerSession::load(
          to_vector<uint8_t>(bytes, "load: bytes"), parse_json(overrides, "load overrides")));
    });
  }

  std::string info() const { return guarded([&] { return s_->info().dump(); }); }
  val train(int steps) {
    return guarded([&] {
      const attnlab::api::PointerChunk c = s_->train(steps);
      val o = val::object();
      o.set("losses", to_f32(c.losses));
      o.set("tokens", double(c.points));
      o.set("step", c.step);
      o.set("lr", 0);
      o.set("gradNorm", 0);
      return o;
    });
  }
  std::string evaluate(int samples, double seed) {
    return guarded([&] { return s_->evaluate(samples, uint64_t(seed)).dump(); });
  }
  // decode(x [n*dim], n) -> {n, order, probs [steps, n+1]}
  val decode(val x, int n) {
    return guarded([&] {
      const attnlab::api::PointerDecode d = s_->decode(to_vector<float>(x, "decode: points"), n);
      val o = val::object();
      o.set("n", d.n);
      o.set("order", to_array(d.order));
      o.set("probs", to_f32(d.probs));
      o.set("steps", int(d.order.size()) + 1);
      return o;
    });
  }
  val examples(int count, int n, const std::string& split, double seed) {
    return guarded([&] {
      if (split != "train" && split != "test") throw attnlab::Error("examples: split must be 'train' or 'test'");
      const attnlab::api::PointerExamples e = s_->examples(
          count, n, split == "train" ? attnlab::Split::Train : attnlab::Split::Test, uint64_t(seed));
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
  val save() { return guarded([&] { return to_u8(s_->save()); }); }

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
