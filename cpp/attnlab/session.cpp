// The public API (attnlab/session.hpp) over api::Session: xtensor in and out at the boundary,
// the session's vectors and the engine's raw buffers inside. Checkpoints trained on a corpus
// (`attn train --task parallel`) carry a subword vocabulary in their training state; it is kept
// here (text in, text out) and written back by save().
#include "attnlab/session.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "core/json.hpp"
#include "data/bpe.hpp"
#include "data/task.hpp"
#include "io/safetensors.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

namespace {

using nlohmann::json;
using Rows = api::Rows;

json parse_object(const std::string& text, const char* what) {
  return parse_json_object(text, what);
}

std::vector<int32_t> to_row(const tokens& t) { return std::vector<int32_t>(t.begin(), t.end()); }

tokens to_tokens(const std::vector<int32_t>& v) {
  tokens t = tokens::from_shape({v.size()});
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

// A [B, L] batch into rows, each ending at its first pad (0).
Rows to_rows(const token_batch& b, const char* what) {
  AL_CHECK(b.dimension() == 2, what << ": expected a [B, L] tensor of token ids");
  Rows rows(b.shape()[0]);
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < b.shape()[1]; ++i) {
      const int32_t id = b(r, i);
      if (id == kPad) break;
      rows[r].push_back(id);
    }
  return rows;
}

token_batch to_batch(const Rows& rows) {
  size_t L = 0;
  for (const auto& r : rows) L = std::max(L, r.size());
  token_batch b = xt::zeros<int32_t>(std::array<size_t, 2>{rows.size(), L});
  for (size_t r = 0; r < rows.size(); ++r) std::copy(rows[r].begin(), rows[r].end(), &b(r, 0));
  return b;
}

AttentionWeights to_map(const attnlab::AttentionMap& m) {
  AttentionWeights a{
      m.name, tensor<float, 4>::from_shape({size_t(m.B), size_t(m.H), size_t(m.T), size_t(m.S)})};
  std::copy(m.weights.begin(), m.weights.end(), a.weights.begin());
  return a;
}

// The cross-attention a decoder used for its output: the last "multihead_attn" map of a
// Transformer, or RNNsearch's alignment; heads averaged, batch row 0: [T, S].
tensor<float, 2> cross_attention(const std::vector<attnlab::AttentionMap>& maps) {
  const attnlab::AttentionMap* pick = nullptr;
  for (const auto& m : maps) {
    const std::string& n = m.name;
    const bool cross =
        n == "alignment" || (n.size() >= 14 && n.compare(n.size() - 14, 14, "multihead_attn") == 0);
    if (cross) pick = &m;
  }
  if (!pick) return tensor<float, 2>::from_shape({0, 0});
  const size_t H = size_t(pick->H), T = size_t(pick->T), S = size_t(pick->S);
  tensor<float, 2> out = xt::zeros<float>(std::array<size_t, 2>{T, S});
  for (size_t h = 0; h < H; ++h)
    for (size_t t = 0; t < T; ++t)
      for (size_t s = 0; s < S; ++s) out(t, s) += pick->weights[(h * T + t) * S + s] / float(H);
  return out;
}

bool known_task(const std::string& name) {
  const auto names = attnlab::task_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<uint8_t> read_file(const std::string& path) {
  const SafeTensors st = read_safetensors(path);  // clear errors for a missing or damaged file
  return serialize_safetensors(st);
}

}  // namespace

struct Session::Impl {
  std::unique_ptr<api::Session> session;
  std::unique_ptr<Bpe> bpe;                 // subword vocabulary of a corpus-trained checkpoint
  json corpus_state;                        // its training state (options, task), kept for save()
  std::unique_ptr<Task> names;              // the task, for readable token names
  std::vector<attnlab::AttentionMap> maps;  // of the last forward / translate

  void name_task() {
    const json info = session->info();
    names.reset();
    if (info["task"].is_string())
      names = make_task(info["task"].get<std::string>(), info["task_options"]);
  }

  int max_len() const { return session->model().position_limit(); }

  std::vector<std::string> names_of(const tokens& ids, bool src) const {
    std::vector<std::string> out;
    for (int32_t id : ids) {
      if (bpe && id >= 0 && id < bpe->size())
        out.push_back(bpe->token(id));
      else if (names)
        out.push_back(src ? names->src_token(id) : names->tgt_token(id));
      else
        out.push_back(std::to_string(id));
    }
    return out;
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

std::string version() { return ATTNLAB_VERSION_STRING; }

int set_threads(int n) {
  set_num_threads(n);
  return num_threads();
}

Session Session::create(const std::string& config_json) {
  auto impl = std::make_unique<Impl>();
  impl->session = api::Session::create(parse_object(config_json, "model config"));
  impl->name_task();
  return Session(std::move(impl));
}

Session Session::load(const std::string& path, const std::string& overrides_json) {
  return load_bytes(read_file(path), overrides_json);
}

Session Session::load_bytes(const std::vector<uint8_t>& bytes, const std::string& overrides_json) {
  const json overrides = parse_object(overrides_json, "load overrides");
  auto impl = std::make_unique<Impl>();
  SafeTensors st = parse_safetensors(bytes.data(), bytes.size());
  const auto ts = st.metadata.find("attnlab_train");
  if (ts != st.metadata.end()) {
    const json state = parse_json_object(ts->second, "checkpoint training state");
    if (state.contains("vocab") && state["vocab"].is_string())
      impl->bpe = std::make_unique<Bpe>(Bpe::from_json(state["vocab"].get<std::string>()));
    // A corpus run's state names a task the session cannot rebuild ("parallel"): the session
    // gets the weights alone and the state stays here.
    if (state.contains("task") && state["task"].is_string() &&
        !known_task(state["task"].get<std::string>())) {
      impl->corpus_state = state;
      st.metadata.erase("attnlab_train");
    }
  }
  impl->session = impl->corpus_state.is_null()
                      ? api::Session::load(bytes, overrides)
                      : api::Session::load(serialize_safetensors(st), overrides);
  impl->name_task();
  return Session(std::move(impl));
}

ModelInfo Session::info() const {
  const json i = impl_->session->info();
  ModelInfo m;
  m.kind = i.value("model", std::string());
  m.task = i.at("task").is_string() ? i.at("task").get<std::string>() : std::string();
  m.parameters = i.value("params", 0L);
  m.step = i.value("step", 0) +
           (impl_->corpus_state.is_null() ? 0 : impl_->corpus_state.value("step", 0));
  m.src_vocab = i.value("srcVocab", 0);
  m.tgt_vocab = i.value("tgtVocab", 0);
  m.max_len = impl_->max_len();
  m.has_vocabulary = impl_->bpe != nullptr;
  m.config_json = i.at("config").dump();
  return m;
}

TrainReport Session::train(int steps, const ProgressCallback& on_progress, int every) {
  AL_CHECK(steps >= 1 && steps <= 10000000, "train: steps must be in [1, 10000000], got " << steps);
  AL_CHECK(every >= 1, "train: every must be at least 1, got " << every);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> losses;
  TrainReport r;
  for (int i = 1; i <= steps; ++i) {
    const api::TrainChunk c = impl_->session->train(1);
    losses.push_back(c.losses.at(0));
    r.tokens += c.tokens;
    r.step = c.step;
    r.steps = i;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (on_progress && (i % every == 0 || i == steps)) {
      Progress p;
      p.step = c.step;
      p.done = i;
      p.total = steps;
      p.loss = c.losses.at(0);
      p.lr = c.lr;
      p.grad_norm = c.grad_norm;
      p.tokens = r.tokens;
      p.seconds = r.seconds;
      if (!on_progress(p)) {
        r.stopped = true;
        break;
      }
    }
  }
  r.losses = tensor<float, 1>::from_shape({losses.size()});
  std::copy(losses.begin(), losses.end(), r.losses.begin());
  return r;
}

Evaluation Session::evaluate(int samples, uint64_t seed) {
  const EvalResult e = impl_->session->evaluate(samples, seed);
  return {e.loss, e.token_accuracy, e.sequence_accuracy, e.samples};
}

Examples Session::examples(int n, bool held_out, uint64_t seed) const {
  const api::Examples e = impl_->session->examples(n, held_out ? Split::Test : Split::Train, seed);
  return {to_batch(e.src), to_batch(e.tgt), e.src_text, e.tgt_text};
}

tensor<float, 3> Session::forward(const token_batch& src, const token_batch& tgt) {
  const Rows s = to_rows(src, "forward: source"), t = to_rows(tgt, "forward: target");
  AL_CHECK(s.size() == t.size(), "forward: need as many target rows as source rows (got "
                                     << s.size() << " and " << t.size() << ")");
  api::Inspection in = impl_->session->inspect(s, t);
  impl_->maps = std::move(in.maps);
  tensor<float, 3> logits =
      tensor<float, 3>::from_shape({size_t(in.B), size_t(in.T), size_t(in.V)});
  std::copy(in.logits.begin(), in.logits.end(), logits.begin());
  return logits;
}

std::vector<AttentionWeights> Session::attention() const {
  std::vector<AttentionWeights> out;
  for (const auto& m : impl_->maps) out.push_back(to_map(m));
  return out;
}

tokens Session::decode(const tokens& src, int beam, int max_len, float alpha) {
  return to_tokens(impl_->session->decode({to_row(src)}, beam, max_len, alpha).at(0));
}

Translation Session::translate(const tokens& src, int beam, int max_len, float alpha) {
  Translation tr;
  tr.source = src;
  const Rows s = {to_row(src)};
  const Rows out = impl_->session->decode(s, beam, max_len, alpha);
  tr.output = to_tokens(out.at(0));
  tr.source_tokens = impl_->names_of(tr.source, true);
  tr.output_tokens = impl_->names_of(tr.output, false);
  if (impl_->bpe)
    tr.text = impl_->bpe->decode(out[0]);
  else
    for (size_t i = 0; i < tr.output_tokens.size(); ++i)
      tr.text += (i ? " " : "") + tr.output_tokens[i];
  // The attention behind this output: one teacher-forced pass over it.
  if (impl_->session->model().autoregressive() && !impl_->session->model().packs_source()) {
    api::Inspection in = impl_->session->inspect(s, out);
    impl_->maps = std::move(in.maps);
    tr.cross_attention = cross_attention(impl_->maps);
  } else {
    tr.cross_attention = tensor<float, 2>::from_shape({0, 0});
  }
  return tr;
}

Translation Session::translate(const std::string& text, int beam, int max_len, float alpha) {
  tokens ids = encode(text);
  AL_CHECK(ids.size() >= 1, "translate: the text is empty");
  const int limit = impl_->max_len();
  AL_CHECK(limit <= 0 || int(ids.size()) <= limit,
           "translate: the text is " << ids.size() << " subwords, longer than the model's max_len "
                                     << limit);
  return translate(ids, beam, max_len, alpha);
}

tokens Session::encode(const std::string& text) const {
  AL_CHECK(impl_->bpe,
           "this model has no vocabulary (only checkpoints trained on a corpus, attn train "
           "--task parallel, carry one): pass token ids");
  return to_tokens(impl_->bpe->encode(text));
}

std::string Session::detokenize(const tokens& ids) const {
  AL_CHECK(impl_->bpe, "this model has no vocabulary: target_tokens() names its ids");
  return impl_->bpe->decode(to_row(ids));
}

std::vector<std::string> Session::source_tokens(const tokens& ids) const {
  return impl_->names_of(ids, true);
}
std::vector<std::string> Session::target_tokens(const tokens& ids) const {
  return impl_->names_of(ids, false);
}

std::vector<uint8_t> Session::save_bytes() const {
  std::vector<uint8_t> bytes = impl_->session->save();
  if (impl_->corpus_state.is_null()) return bytes;
  // Put the corpus run's vocabulary and options back (optimizer state is not saved here, so
  // the batcher and Adam counters are left out: the file is for translation, not resuming).
  SafeTensors st = parse_safetensors(bytes.data(), bytes.size());
  json state = json::object();
  for (const char* key : {"task", "options", "vocab"})
    if (impl_->corpus_state.contains(key)) state[key] = impl_->corpus_state[key];
  state["step"] = info().step;
  st.metadata["attnlab_train"] = state.dump();
  return serialize_safetensors(st);
}

void Session::save(const std::string& path) const {
  check_writable(path);
  const std::vector<uint8_t> bytes = save_bytes();
  write_safetensors_atomic(path, parse_safetensors(bytes.data(), bytes.size()));
}

}  // namespace attnlab
