// Embind registration of model sessions (cpp/api/model_session.hpp): conversion of token rows and
// point sets, results copied out of the heap as typed arrays, C++ errors as JS Errors. Every
// key of the JSON results is camelCase, for every model kind.
#include <emscripten/bind.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "bindings/convert.hpp"
#include "core/check.hpp"
#include "models/memory.hpp"

using emscripten::val;
using namespace attnlab::bind;
using attnlab::api::Rows;
using nlohmann::json;

namespace {

val chunk_to_js(const attnlab::api::TrainChunk& c) {
  val o = val::object();
  o.set("losses", to_f32(c.losses));
  o.set("tokens", double(c.tokens));
  o.set("step", c.step);
  o.set("lr", c.lr);
  o.set("gradNorm", c.grad_norm);
  if (c.pending) {  // a deferred backend: the records to read, then settle()
    o.set("records", double(c.records));
    o.set("pending", c.pending);
  }
  return o;
}

// inspect()'s options: a boolean is the causal flag; an object may set causal, parts, trace and
// mute, where mute maps attention sublayer names to arrays of head indices.
attnlab::api::InspectOptions inspect_options(const val& opts) {
  attnlab::api::InspectOptions o;
  if (opts.isUndefined() || opts.isNull()) return o;
  if (opts.isTrue() || opts.isFalse()) {
    o.causal = opts.isTrue();
    return o;
  }
  if (opts.typeOf().as<std::string>() != "object" ||
      val::global("Array").call<bool>("isArray", opts))
    type_error(
        "inspect: options must be an object {causal, parts, trace, mute} or a boolean, got " +
        opts.typeOf().as<std::string>());
  o.causal = bool_arg(opts["causal"], "inspect: causal", true);
  o.parts = bool_arg(opts["parts"], "inspect: parts", false);
  o.trace = bool_arg(opts["trace"], "inspect: trace", false);
  const val mute = opts["mute"];
  if (mute.isUndefined() || mute.isNull()) return o;
  if (mute.typeOf().as<std::string>() != "object" ||
      val::global("Array").call<bool>("isArray", mute))
    type_error("inspect: mute must be an object {sublayer name: [head indices]}, got " +
               mute.typeOf().as<std::string>());
  const val keys = val::global("Object").call<val>("keys", mute);
  const size_t n = array_length(keys, "inspect: mute", 4096);
  for (size_t i = 0; i < n; ++i) {
    const std::string name = keys[i].as<std::string>();
    const std::string what = "inspect: mute[\"" + name + "\"]";
    const val heads = mute[name];
    const size_t h = array_length(heads, what, 4096);
    std::vector<int>& out = o.mute[name];
    for (size_t j = 0; j < h; ++j) out.push_back(int_arg(heads[j], what, 0, 4095));
  }
  return o;
}

// A row's ForwardTrace: {tokens: Int32Array, first, tensors: [{name, dims, values}]}, the
// tensors in the order the forward pass computed them.
val trace_to_js(const attnlab::ForwardTrace& tr) {
  val o = val::object();
  o.set("tokens", to_i32(tr.tokens));
  o.set("first", tr.first);
  val tensors = val::array();
  for (size_t i = 0; i < tr.tensors.size(); ++i) {
    const attnlab::TracedTensor& t = tr.tensors[i];
    val x = val::object();
    x.set("name", t.name);
    x.set("dims", to_array(t.dims));
    x.set("values", to_f32(t.values));
    tensors.set(i, x);
  }
  o.set("tensors", tensors);
  return o;
}

class JsSession {
 public:
  explicit JsSession(std::unique_ptr<attnlab::api::Session> s) : s_(std::move(s)) {}

  static JsSession* create(val config) {
    return guarded([&] {
      return new JsSession(attnlab::api::Session::create(json_arg(config, "session config")));
    });
  }
  static JsSession* load(val bytes, val overrides) {
    return guarded([&] {
      return new JsSession(attnlab::api::Session::load(to_bytes(bytes, "load: bytes"),
                                                       json_arg(overrides, "load overrides")));
    });
  }

  std::string info() const {
    return guarded([&] { return s_->info().dump(); });
  }
  val train(val steps) {
    return guarded(
        [&] { return chunk_to_js(s_->train(int_arg(steps, "train: steps", 1, 100000))); });
  }
  val train_batch(val src, val tgt) {
    return guarded([&] {
      return chunk_to_js(
          s_->train_batch(to_rows(src, "trainBatch: src"), to_rows(tgt, "trainBatch: tgt")));
    });
  }
  std::string evaluate(val samples, val seed) {
    return guarded([&] {
      const attnlab::EvalResult r = s_->evaluate(int_arg(samples, "evaluate: samples", 1, 100000),
                                                 seed_arg(seed, "evaluate: seed"));
      json j = {{"loss", r.loss},
                {"tokenAccuracy", r.token_accuracy},
                {"sequenceAccuracy", r.sequence_accuracy},
                {"samples", r.samples}};
      if (r.aer >= 0) j["aer"] = r.aer;
      if (r.area_coverage >= 0) j["areaCoverage"] = r.area_coverage;
      if (r.invalid_rate >= 0) j["invalidRate"] = r.invalid_rate;
      if (r.tour_length >= 0) j["tourLength"] = r.tour_length;
      if (r.optimal_tour_length >= 0) j["optimalTourLength"] = r.optimal_tour_length;
      if (!r.per_length.empty()) {
        json pl = json::object();
        for (const auto& [len, acc] : r.per_length) pl[std::to_string(len)] = acc;
        j["perLength"] = pl;
      }
      return j.dump();
    });
  }
  val decode(val src, val beam, val max_len, val alpha) {
    return guarded([&] {
      return rows_to_js(s_->decode(to_rows(src, "decode: src"),
                                   int_arg(beam, "decode: beam", 1, 64),
                                   int_arg(max_len, "decode: maxLen", 0, 1 << 20),
                                   float(number_arg(alpha, "decode: alpha", 0, 100))));
    });
  }
  // One source decoded as decode() does, with the beam search's record:
  // {tokens, beam, alpha, winner: {step, index} | null,
  //  steps: [[{parent, token, logp, score, status: 'kept' | 'finished' | 'pruned'}]]}
  // (eval/decode.hpp's BeamTrace; beam 1 decodes greedily and records no steps).
  val decode_trace(val src, val beam, val max_len, val alpha) {
    return guarded([&] {
      attnlab::BeamTrace tr;
      const std::vector<int32_t> out = s_->decode_traced(
          to_ids(src, "decodeTrace: src"), int_arg(beam, "decodeTrace: beam", 1, 64),
          int_arg(max_len, "decodeTrace: maxLen", 0, 1 << 20),
          float(number_arg(alpha, "decodeTrace: alpha", 0, 100)), tr);
      static const char* const kStatus[] = {"kept", "finished", "pruned"};
      val steps = val::array();
      for (size_t i = 0; i < tr.steps.size(); ++i) {
        val step = val::array();
        for (size_t j = 0; j < tr.steps[i].size(); ++j) {
          const attnlab::BeamCandidate& c = tr.steps[i][j];
          val o = val::object();
          o.set("parent", c.parent);
          o.set("token", c.token);
          o.set("logp", c.logp);
          o.set("score", c.score);
          o.set("status", std::string(kStatus[c.status]));
          step.set(j, o);
        }
        steps.set(i, step);
      }
      val o = val::object();
      o.set("tokens", to_i32(out));
      o.set("beam", tr.beam);
      o.set("alpha", tr.alpha);
      o.set("steps", steps);
      if (tr.winner_step >= 0) {
        val w = val::object();
        w.set("step", tr.winner_step);
        w.set("index", tr.winner_index);
        o.set("winner", w);
      } else {
        o.set("winner", val::null());
      }
      return o;
    });
  }
  // opts: true/false (causal, the older form) or {causal, parts, trace, mute: {sublayer:
  // [heads]}}; trace adds traces, one per row (trace_to_js).
  val inspect(val src, val tgt, val opts) {
    return guarded([&] {
      const attnlab::api::Inspection in = s_->inspect(
          to_rows(src, "inspect: src"), to_rows(tgt, "inspect: tgt"), inspect_options(opts));
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
        if (i < in.parts.size() && in.parts[i].name == m.name) {  // parts: same order as maps
          const attnlab::AttentionParts& p = in.parts[i];
          x.set("hs", p.hs);
          x.set("q", to_f32(p.q));
          x.set("k", to_f32(p.k));
          x.set("v", to_f32(p.v));
        }
        maps.set(i, x);
      }
      o.set("maps", maps);
      if (!in.traces.empty()) {
        val traces = val::array();
        for (size_t i = 0; i < in.traces.size(); ++i) traces.set(i, trace_to_js(in.traces[i]));
        o.set("traces", traces);
      }
      return o;
    });
  }
  val examples(val n, val split_arg, val seed) {
    return guarded([&] {
      const std::string split = string_arg(split_arg, "examples: split", 16);
      if (split != "train" && split != "test")
        range_error("examples: split must be 'train' or 'test'");
      const attnlab::api::Examples e =
          s_->examples(int_arg(n, "examples: n", 1, 10000),
                       split == "train" ? attnlab::Split::Train : attnlab::Split::Test,
                       seed_arg(seed, "examples: seed"));
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
  // decodePoints(x [n*dim], n) -> {n, order, probs [steps, n+1], steps}
  val decode_points(val x, val n) {
    return guarded([&] {
      const attnlab::api::PointDecode d = s_->decode_points(to_floats(x, "decode: points", false),
                                                            int_arg(n, "decode: n", 1, 1000));
      val o = val::object();
      o.set("n", d.n);
      o.set("order", to_array(d.order));
      o.set("probs", to_f32(d.probs));
      o.set("steps", int(d.order.size()) + 1);
      return o;
    });
  }
  // pointExamples(count, n, split, seed) -> {n, dim, x [count, n, dim], target [[positions]]}
  val point_examples(val count, val n, val split_arg, val seed) {
    return guarded([&] {
      const std::string split = string_arg(split_arg, "examples: split", 16);
      if (split != "train" && split != "test")
        range_error("examples: split must be 'train' or 'test'");
      const attnlab::api::PointExamples e = s_->point_examples(
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
  // A deferred backend: the pending steps' [loss, norm] records, read by the page
  void settle(val records) {
    guarded([&] {  // NaN and infinities are what settle() looks for: no finiteness check here
      if (!records.instanceof (val::global("Float32Array")))
        type_error("settle: records must be the Float32Array read from the GPU");
      s_->settle(emscripten::convertJSArrayToNumberVector<float>(records));
    });
  }
  // [[address, bytes]] that reading the model (evaluate, decode, inspect, save) downloads
  std::string device_ranges(bool optimizer) {
    return guarded([&] { return s_->device_ranges(optimizer).dump(); });
  }
  // The weights plus Adam's moments and step: what a stored run needs to continue as the same run.
  val save_training() {
    return guarded([&] { return to_u8(s_->save(true)); });
  }
  val encode_text(val text) {
    return guarded(
        [&] { return to_i32(s_->encode_text(string_arg(text, "encodeText: text", 1 << 16))); });
  }
  std::string decode_text(val ids) {
    return guarded([&] { return s_->decode_text(to_ids(ids, "decodeText: ids")); });
  }
  val pieces(val ids) {
    return guarded([&] {
      val out = val::array();
      const std::vector<std::string> p = s_->pieces(to_ids(ids, "pieces: ids"));
      for (size_t i = 0; i < p.size(); ++i) out.set(i, p[i]);
      return out;
    });
  }

 private:
  std::unique_ptr<attnlab::api::Session> s_;
};

double estimate_bytes(val config) {
  return guarded(
      [&] { return attnlab::api::Session::estimate(json_arg(config, "session config")).total(); });
}

std::string registry() {
  return guarded([&] {
    json kinds = json::object();
    for (const std::string& k : attnlab::model_kinds()) kinds[k] = attnlab::kind_info(k).to_json();
    return json({{"models", attnlab::model_kinds()},
                 {"kinds", kinds},
                 {"tasks", attnlab::task_names()}})
        .dump();
  });
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
      .function("decodeTrace", &JsSession::decode_trace)
      .function("inspect", &JsSession::inspect)
      .function("examples", &JsSession::examples)
      .function("decodePoints", &JsSession::decode_points)
      .function("pointExamples", &JsSession::point_examples)
      .function("save", &JsSession::save)
      .function("saveTraining", &JsSession::save_training)
      .function("encodeText", &JsSession::encode_text)
      .function("decodeText", &JsSession::decode_text)
      .function("pieces", &JsSession::pieces)
      .function("settle", &JsSession::settle)
      .function("deviceRanges", &JsSession::device_ranges);
  emscripten::function("estimateBytes", &estimate_bytes);
  emscripten::function("registry", &registry);
}
