// Model sessions (see model_session.hpp), the reading side: inspection (attention maps and their
// parts, heads muted or the causal mask lifted for one call), drawn examples with their readable
// tokens, point-set decoding, and the text vocabulary's encode, decode and pieces.
#include <algorithm>
#include <cmath>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "data/point_task.hpp"
#include "eval/decode.hpp"
#include "models/cost.hpp"

namespace attnlab::api {

namespace {

// A drawn example's ids as the task's readable tokens, space-separated.
std::string join(const std::vector<int32_t>& ids, const Task& t, bool src) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i)
    s += (i ? " " : "") + (src ? t.src_token(ids[i]) : t.tgt_token(ids[i]));
  return s;
}

}  // namespace

namespace {

// Lifts a model's causal mask while alive; restores it on every exit path.
class Unmasked {
 public:
  explicit Unmasked(Model* t) : t_(t) {
    if (t_) set_causal(*t_, false);
  }
  ~Unmasked() {
    if (t_) set_causal(*t_, true);
  }
  Unmasked(const Unmasked&) = delete;
  Unmasked& operator=(const Unmasked&) = delete;

 private:
  Model* t_;
};

// Mutes heads of a model for one scope; the mask is cleared on the way out, errors included.
class MutedHeads {
 public:
  MutedHeads(Model& m, const HeadMask& mask) : m_(mask.empty() ? nullptr : &m) {
    if (m_) set_muted_heads(*m_, mask);
  }
  ~MutedHeads() {
    if (m_) set_muted_heads(*m_, {});
  }
  MutedHeads(const MutedHeads&) = delete;
  MutedHeads& operator=(const MutedHeads&) = delete;

 private:
  Model* m_;
};

// Turns a model's forward tracing on while alive (null: nothing to do).
class Tracing {
 public:
  explicit Tracing(ForwardTracing* t) : t_(t) {
    if (t_) t_->set_tracing(true);
  }
  ~Tracing() {
    if (t_) t_->set_tracing(false);
  }
  Tracing(const Tracing&) = delete;
  Tracing& operator=(const Tracing&) = delete;

 private:
  ForwardTracing* t_;
};

}  // namespace

Inspection Session::inspect(const Rows& src, const Rows& tgt, const InspectOptions& options) {
  const bool causal = options.causal;
  AL_CHECK(!src.empty(), "inspect: no source rows");
  AL_CHECK(model_->input_dim() == 0, "inspect: this model reads point sets (decodePoints)");
  size_t S = 0, T = 0;
  for (const auto& r : src) S = std::max(S, r.size());
  for (const auto& r : tgt) T = std::max(T, r.size());
  const int limit = tgt.empty() ? std::max(1, decode_steps(S, 0)) : 0;  // greedy decoding's
  check_cost(
      forward_cost(model_->config(), double(src.size()), double(S),
                   double(tgt.empty() ? limit + 1 : T + 1)) +
          (tgt.empty() ? decode_cost(model_->config(), double(src.size()), double(S), 1, limit)
                       : 0.0),
      "inspect", "inspect fewer or shorter rows");
  Model& m = reader();
  Model* unmask = nullptr;
  if (!causal) {
    unmask = &m;
    const std::string kind = model_->kind();
    AL_CHECK(has_causal_mask(m),
             "inspect: causal = false applies to a Transformer decoder (\"transformer\" or "
             "\"lm\"), not to a \""
                 << kind << "\" model");
  }
  ForwardTracing* tracer = nullptr;
  if (options.trace) {
    tracer = capability<ForwardTracing>(m);
    AL_CHECK(tracer, "inspect: trace follows a Transformer's forward pass, not a \""
                         << model_->kind() << "\" model's");
    // One stack of layers: the decoder-only model packs its source into the target, the
    // encoder-only one does not generate; an encoder-decoder does neither.
    AL_CHECK(m.packs_source() || !m.autoregressive(),
             "inspect: trace follows a decoder-only (\"lm\") or encoder-only (\"encoder\") "
             "Transformer, one stack of layers; this is an encoder-decoder");
  }
  const MutedHeads muted(m, options.mute);
  Inspection r;
  r.tgt = tgt.empty() ? decode(src, 1, 0, 0.6f) : tgt;
  AL_CHECK(r.tgt.size() == src.size(), "inspect: need as many target rows as source rows");
  check_rows(src, model_->src_vocab(), "inspect: source");
  check_rows(r.tgt, model_->out_vocab(), "inspect: target");
  std::vector<Example> ex;
  for (size_t i = 0; i < src.size(); ++i) ex.push_back({src[i], r.tgt[i]});
  const Batch b = make_batch(ex);
  {
    const Unmasked lifted(unmask);
    const Tracing traced(tracer);
    m.forward(b, false, nullptr, 0.f);
  }
  r.B = b.B;
  r.T = b.T;
  r.V = model_->out_vocab();
  r.logits = m.logits();
  r.maps = m.attention();
  if (options.parts) r.parts = attention_parts(m);
  for (int row = 0; tracer && row < b.B; ++row) r.traces.push_back(tracer->trace(row));
  return r;
}

Examples Session::examples(int n, Split split, uint64_t seed) const {
  AL_CHECK(n >= 1 && n <= 10000, "examples: n must be in [1, 10000], got " << n);
  const Task& t = need_task("examples");
  AL_CHECK(t.input_dim() == 0,
           "examples: task " << task_name_ << " has point sets (pointExamples)");
  Rng rng(seed);
  Examples e;
  for (Example& x : sample_many(t, rng, split, n)) {
    e.src_text.push_back(join(x.src, t, true));
    e.tgt_text.push_back(join(x.tgt, t, false));
    e.src.push_back(std::move(x.src));
    e.tgt.push_back(std::move(x.tgt));
  }
  return e;
}

PointDecode Session::decode_points(const std::vector<float>& x, int n) {
  const int D = model_->input_dim();
  AL_CHECK(D > 0,
           "decodePoints: a \"" << model_->kind() << "\" model reads token ids, not point sets");
  AL_CHECK(n >= 1 && n <= 1000, "decode: n must be in [1, 1000], got " << n);
  AL_CHECK(x.size() == size_t(n) * D,
           "decode: got " << x.size() << " values, expected n*dim = " << size_t(n) * D);
  check_cost(decode_cost(model_->config(), 1, n, 1, n + 1), "decodePoints",
             "decode a smaller point set");
  const PointDecoded d = attnlab::decode_points(reader(), x, 1, n, 1, true);
  PointDecode r;
  r.n = n;
  r.order = d.order[0];
  for (const auto& step : d.probs[0]) r.probs.insert(r.probs.end(), step.begin(), step.end());
  return r;
}

PointExamples Session::point_examples(int count, int n, Split split, uint64_t seed) const {
  AL_CHECK(count >= 1 && count <= 10000, "examples: count must be in [1, 10000]");
  const Task& t = need_task("examples");
  AL_CHECK(t.input_dim() > 0, "pointExamples: task " << task_name_ << " has token sequences");
  if (n <= 0) n = t.min_src_len();
  AL_CHECK(n <= 1000 && (t.name() != "tsp" || n <= 10), "examples: n out of range");
  Rng rng(seed);
  const Batch b = t.sample_sets(rng, split, count, n);
  PointExamples e{n, t.input_dim(), b.x, std::vector<std::vector<int>>(static_cast<size_t>(count))};
  for (int r = 0; r < count; ++r)
    for (int k = 0; k < b.T && b.tgt_out[size_t(r) * b.T + k] != kEos; ++k)
      e.target[size_t(r)].push_back(b.tgt_out[size_t(r) * b.T + k] - kFirstSymbol);
  return e;
}

const Bpe& Session::need_bpe(const char* what) const {
  AL_CHECK(bpe_, what << ": this model has no text vocabulary (only checkpoints trained on a "
                         "text corpus, attn train --task parallel, carry one)");
  return *bpe_;
}

std::vector<int32_t> Session::encode_text(const std::string& text) const {
  std::vector<int32_t> ids = need_bpe("encodeText").encode(text);
  const int model_max = model_->max_len();
  AL_CHECK(!ids.empty(), "encodeText: the text has no words");
  AL_CHECK(int(ids.size()) <= model_max,
           "encodeText: the text is " << ids.size() << " tokens long; this model reads at most "
                                      << model_max);
  return ids;
}

std::string Session::decode_text(const std::vector<int32_t>& ids) const {
  const Bpe& bpe = need_bpe("decodeText");
  check_rows({ids}, bpe.size(), "decodeText:");
  return bpe.decode(ids);
}

std::vector<std::string> Session::pieces(const std::vector<int32_t>& ids) const {
  const Bpe& bpe = need_bpe("pieces");
  check_rows({ids}, bpe.size(), "pieces:");
  std::vector<std::string> out;
  for (int32_t id : ids) out.push_back(bpe.token(id));
  return out;
}

}  // namespace attnlab::api
