// Beam search's record (BeamTrace): recording changes nothing in the result; the recorded winner
// is the returned output; every recorded log-probability is the sum, along the candidate's
// path, of the teacher-forced pass's log-probabilities; each step holds at most `beam` taken
// candidates, the best `beam` left ones after them, in the search's order. On the shipped
// German→English checkpoint (through api::Session, as the page calls it) and on an untrained
// small Transformer (direct beam_decode, with and without the step cache).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "eval/decode.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

double lp(size_t len, float alpha) { return std::pow((5.0 + double(len)) / 6.0, double(alpha)); }

// The hypothesis a trace entry stands for: its tokens after <s> (</s> included when finished),
// each step's entry along its path, and the parent chain's consistency.
std::vector<int32_t> path_of(const BeamTrace& tr, int step, int index,
                             std::vector<const BeamCandidate*>* along = nullptr) {
  std::vector<int32_t> toks;
  std::vector<const BeamCandidate*> entries;
  for (int s = step, i = index; s >= 0; --s) {
    REQUIRE(i >= 0);
    REQUIRE(size_t(i) < tr.steps[size_t(s)].size());
    const BeamCandidate& c = tr.steps[size_t(s)][size_t(i)];
    toks.insert(toks.begin(), c.token);
    entries.insert(entries.begin(), &c);
    if (s == 0) {
      CHECK(c.parent == 0);
      break;
    }
    // the parent is the c.parent-th kept candidate of the step before
    int seen = -1;
    i = -1;
    const auto& prev = tr.steps[size_t(s) - 1];
    for (size_t j = 0; j < prev.size(); ++j)
      if (prev[j].status == BeamCandidate::kKept && ++seen == c.parent) i = int(j);
  }
  if (along) *along = entries;
  return toks;
}

// The structure of every step: at most `beam` kept, the taken ones (kept, finished) first and
// best log-probability first throughout, `beam` pruned ones unless the step ran short, scores
// the length-normalised log-probabilities.
void check_steps(const BeamTrace& tr, int beam, float alpha) {
  REQUIRE(tr.beam == beam);
  REQUIRE_FALSE(tr.steps.empty());
  for (size_t s = 0; s < tr.steps.size(); ++s) {
    INFO("step " << s);
    const auto& st = tr.steps[s];
    int kept = 0, finished = 0, pruned = 0, parents = 0;
    if (s > 0)
      for (const auto& c : tr.steps[s - 1]) parents += c.status == BeamCandidate::kKept;
    for (size_t j = 0; j < st.size(); ++j) {
      const BeamCandidate& c = st[j];
      kept += c.status == BeamCandidate::kKept;
      finished += c.status == BeamCandidate::kFinished;
      pruned += c.status == BeamCandidate::kPruned;
      if (j > 0) {
        CHECK(c.logp <= st[j - 1].logp);
        // nothing taken after a pruned one
        if (st[j - 1].status == BeamCandidate::kPruned) CHECK(c.status == BeamCandidate::kPruned);
      }
      CHECK(c.logp <= 0);
      CHECK(std::isfinite(c.logp));
      CHECK(c.parent >= 0);
      CHECK(c.parent < (s == 0 ? 1 : parents));
      // the extension's length: s + 1 tokens after <s>
      CHECK(c.score == Approx(c.logp / lp(s + 1, alpha)).epsilon(1e-12));
    }
    CHECK(kept <= beam);
    // the search stops taking once `beam` are live: kept short of beam only on the last step
    if (s + 1 < tr.steps.size()) CHECK(kept == beam);
    CHECK(pruned == beam);  // the shipped model and these sources never run short
    (void)finished;
  }
}

// Every entry's log-probability against the teacher-forced pass over its path: logits [T,V]
// of row 0, position t predicting token t (after <s>).
void check_logp(const std::vector<const BeamCandidate*>& along, const std::vector<float>& logits,
                int V) {
  double sum = 0;
  for (size_t t = 0; t < along.size(); ++t) {
    const float* z = logits.data() + t * size_t(V);
    double mx = -INFINITY, s = 0;
    for (int v = 0; v < V; ++v) mx = std::max(mx, double(z[v]));
    for (int v = 0; v < V; ++v) s += std::exp(double(z[v]) - mx);
    sum += double(z[along[t]->token]) - mx - std::log(s);
    INFO("position " << t);
    CHECK(along[t]->logp == Approx(sum).margin(1e-4));
  }
}

std::vector<uint8_t> shipped() {
  std::ifstream f(ATTNLAB_FIXTURES "/../../web/public/models/translate-de-en.safetensors",
                  std::ios::binary);
  REQUIRE(f.good());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("beam trace: the shipped translator's search, recorded, decodes the same",
          "[decode][beam_trace]") {
  auto s = api::Session::load(shipped(), nlohmann::json::object());
  REQUIRE(s->has_text_vocabulary());
  const int eos = s->model().eos_id();
  for (const char* text :
       {"Ich habe heute keine Zeit.", "Das Haus ist sehr alt und schön.", "Wo ist der Bahnhof?"}) {
    const std::vector<int32_t> src = s->encode_text(text);
    const int max_len = 2 * int(src.size()) + 10;  // as the page's translate()
    for (int beam : {2, 4, 8}) {
      INFO(text << ", beam " << beam);
      BeamTrace tr;
      const std::vector<int32_t> traced = s->decode_traced(src, beam, max_len, 0.6f, tr);
      const std::vector<int32_t> plain = s->decode({src}, beam, max_len, 0.6f).at(0);
      REQUIRE(traced == plain);
      check_steps(tr, beam, 0.6f);
      // the winner is the output (</s> appended when it finished)
      REQUIRE(tr.winner_step >= 0);
      std::vector<const BeamCandidate*> along;
      std::vector<int32_t> won = path_of(tr, tr.winner_step, tr.winner_index, &along);
      const BeamCandidate& w = tr.steps[size_t(tr.winner_step)][size_t(tr.winner_index)];
      CHECK(w.status != BeamCandidate::kPruned);
      if (w.status == BeamCandidate::kFinished) {
        REQUIRE(won.back() == eos);
        won.pop_back();
      }
      CHECK(won == plain);
      // no finished hypothesis has a better normalised score than the winner's
      for (const auto& st : tr.steps)
        for (const auto& c : st)
          if (c.status == BeamCandidate::kFinished) CHECK(c.score <= w.score);
      // the recorded log-probabilities are the teacher-forced pass's along the winner's path
      const api::Inspection in = s->inspect({src}, {won});
      check_logp(along, in.logits, in.V);
      // and along a pruned candidate's path at the first step that has one
      const auto& st0 = tr.steps[0];
      const auto p = std::find_if(st0.begin(), st0.end(),
                                  [](const auto& c) { return c.status == BeamCandidate::kPruned; });
      REQUIRE(p != st0.end());
      if (p->token != eos) {
        const api::Inspection one = s->inspect({src}, {{p->token}});
        check_logp({&*p}, one.logits, one.V);
      }
    }
  }
  // beam 1 decodes greedily: no steps, the same tokens
  const std::vector<int32_t> src = s->encode_text("Guten Morgen.");
  BeamTrace tr;
  CHECK(s->decode_traced(src, 1, 30, 0.6f, tr) == s->decode({src}, 1, 30, 0.6f).at(0));
  CHECK(tr.steps.empty());
  CHECK(tr.winner_step == -1);
  CHECK_THROWS_AS(s->decode_traced(src, 0, 30, 0.6f, tr), Error);
  CHECK_THROWS_AS(s->decode_traced({}, 4, 30, 0.6f, tr), Error);
}

TEST_CASE("beam trace: an untrained Transformer's search, with and without the step cache",
          "[decode][beam_trace]") {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 13}, {"tgt_vocab", 11},
                              {"d_model", 16},          {"heads", 4},      {"d_ff", 24},
                              {"enc_layers", 2},        {"dec_layers", 2}, {"dropout", 0.0},
                              {"max_len", 16}};
  auto m = make_model(cfg, cpu_kernels(), 11);
  for (const std::vector<int32_t>& src :
       std::vector<std::vector<int32_t>>{{3, 4, 5, 6, 7}, {8, 9}, {10, 11, 12, 3}}) {
    for (int beam : {2, 3, 5})
      for (bool cache : {true, false}) {
        INFO("beam " << beam << ", cache " << cache);
        BeamTrace tr;
        const auto traced = beam_decode(*m, src, beam, 9, 0.6f, cache, &tr);
        REQUIRE(traced == beam_decode(*m, src, beam, 9, 0.6f, cache));
        check_steps(tr, beam, 0.6f);
        std::vector<const BeamCandidate*> along;
        std::vector<int32_t> won = path_of(tr, tr.winner_step, tr.winner_index, &along);
        if (!won.empty() && won.back() == m->eos_id()) won.pop_back();
        CHECK(won == traced);
        // teacher-forced over the winner (full forward: make_batch adds <s> and </s>)
        const Batch b = make_batch(std::vector<Example>{{src, won}});
        m->forward(b, false, nullptr, 0.f);
        check_logp(along, m->logits(), m->out_vocab());
      }
  }
}
