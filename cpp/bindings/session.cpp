// Embind registration of model sessions (cpp/api/session.hpp): conversion of token rows,
// results copied out of the heap as typed arrays, C++ errors as JS Errors.
#include <emscripten/bind.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "api/memory.hpp"
#include "core/check.hpp"
#include "api/session.hpp"
#include "bindings/convert.hpp"

using emscripten::val;
using namespace attnlab::bind;
using attnlab::api::Rows;
using nlohmann::json;

namespace {

json parse_json(const std::string& s, const char* what) {
  json j = json::parse(s.empty() ? "{}" : s, nullptr, false);
  if (j.is_discarded()) throw attnlab::Error(std::string(what) + ": not valid JSON");
  return j;
}

Rows to_rows(const val& a, const char* what) {
  Rows rows;
  if (a.isUndefined() || a.isNull()) return rows;
  if (!a["length"].isNumber()) throw attnlab::Error(std::string(what) + ": expected an array of rows");
  const int n = a["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const val r = a[i];
    if (r.isUndefined() || r.isNull() || !r["length"].isNumber())
      throw attnlab::Error(std::string(what) + ": row " + std::to_string(i) + " is not an array of ids");
    rows.push_back(emscripten::convertJSArrayToNumberVector<int32_t>(r));
  }
  return rows;
}

val rows_to_js(const Rows& rows) {
  val a = val::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    val r = val::array();
    for (size_t j = 0; j < rows[i].size(); ++j) r.set(j, rows[i][j]);
    a.set(i, r);
  }
  return a;
}

val chunk_to_js(const attnlab::api::TrainChunk& c) {
  val o = val::object();
  o.set("losses", to_f32(c.losses));
  o.set("tokens", double(c.tokens));
  o.set("step", c.step);
  o.set("lr", c.lr);
  o.set("gradNorm", c.grad_norm);
  return o;
}

class JsSession {
 public:
  explicit JsSession(std::unique_ptr<attnlab::api::Session> s) : s_(std::move(s)) {}

  static JsSession* create(const std::string& config) {
    return guarded([&] { return new JsSession(attnlab::api::Session::create(parse_json(config, "session config"))); });
  }
  static JsSession* load(val bytes, const std::string& overrides) {
    return guarded([&] {
      return new JsSession(attnlab::api::Session::load(to_vector<uint8_t>(bytes, "load: bytes"),
                                                       parse_json(overrides, "load overrides")));
    });
  }

  std::string info() const { return guarded([&] { return s_->info().dump(); }); }
  val train(int steps) { return guarded([&] { return chunk_to_js(s_->train(steps)); }); }
  val train_batch(val src, val tgt) {
    return guarded([&] { return chunk_to_js(s_->train_batch(to_rows(src, "src"), to_rows(tgt, "tgt"))); });
  }
  std::string evaluate(int samples, double seed) {
    return guarded([&] {
      const attnlab::EvalResult r = s_->evaluate(samples, uint64_t(seed));
      json j = {{"loss", r.loss}, {"tokenAccuracy", r.token_accuracy},
                {"sequenceAccuracy", r.sequence_accuracy}, {"samples", r.samples}};
      if (r.aer >= 0) j["aer"] = r.aer;
      if (!r.per_length.empty()) {
        json pl = json::object();
        for (const auto& [len, acc] : r.per_length) pl[std::to_string(len)] = acc;
        j["perLength"] = pl;
      }
      return j.dump();
    });
  }
  val decode(val src, int beam, int max_len, double alpha) {
    return guarded([&] { return rows_to_js(s_->decode(to_rows(src, "src"), beam, max_len, float(alpha))); });
  }
  val inspect(val src, val tgt, bool causal) {
    return guarded([&] {
      const attnlab::api::Inspection in = s_->inspect(to_rows(src, "src"), to_rows(tgt, "tgt"), causal);
      val o = val::object();
      o.set("B", in.B);
      o.set("T", in.T);
      o.set("V", in.V);
      o.set("logits", to_f32(in.logits));
      o.set("tgt", rows_to_js(in.tgt));
      val maps = val::array();
      for (size_t i = 0; i < in.maps.size(); ++i) {
        const attnlab::AttentionMap& m = in.maps[i];
        val x = val::object();
        x.set("name", m.name);
        x.set("B", m.B);
        x.set("H", m.H);
        x.set("T", m.T);
        x.set("S", m.S);
        x.set("weights", to_f32(m.weights));
        maps.set(i, x);
      }
      o.set("maps", maps);
      return o;
    });
  }
  val examples(int n, const std::string& split, double seed) {
    return guarded([&] {
      if (split != "train" && split != "test") throw attnlab::Error("examples: split must be 'train' or 'test'");
      const attnlab::api::Examples e =
          s_->examples(n, split == "train" ? attnlab::Split::Train : attnlab::Split::Test, uint64_t(seed));
      val o = val::object();
      o.set("src", rows_to_js(e.src));
      o.set("tgt", rows_to_js(e.tgt));
      val st = val::array(), tt = val::array();
      for (size_t i = 0; i < e.src_text.size(); ++i) {
        st.set(i, e.src_text[i]);
        tt.set(i, e.tgt_text[i]);
      }
      o.set("srcText", st);
      o.set("tgtText", tt);
      return o;
    });
  }
  val save() { return guarded([&] { return to_u8(s_->save()); }); }

 private:
  std::unique_ptr<attnlab::api::Session> s_;
};

double estimate_bytes(const std::string& config) {
  return guarded([&] { return attnlab::api::Session::estimate(parse_json(config, "session config")).total(); });
}

std::string registry() {
  return guarded([&] { return json({{"models", attnlab::model_kinds()}, {"tasks", attnlab::task_names()}}).dump(); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_session) {
  emscripten::class_<JsSession>("Session")
      .class_function("create", &JsSession::create, emscripten::allow_raw_pointers())
      .class_function("load", &JsSession::load, emscripten::allow_raw_pointers())
      .function("info", &JsSession::info)
      .function("train", &JsSession::train)
      .function("trainBatch", &JsSession::train_batch)
      .function("evaluate", &JsSession::evaluate)
      .function("decode", &JsSession::decode)
      .function("inspect", &JsSession::inspect)
      .function("examples", &JsSession::examples)
      .function("save", &JsSession::save);
  emscripten::function("estimateBytes", &estimate_bytes);
  emscripten::function("registry", &registry);
}
