// The bucketed all-reduce overlapped with backward: the backward of the Transformer, of
// RNNsearch/RNNencdec and of the pointer network reports every parameter's gradient once, only when
// it is final (ParamArena::grads_ready), and the one training step under a BucketedGradientSync
// starts buckets during backward, with the same result as reducing everything after backward. The
// communicator is a fake second rank, as in test_dist.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "data/task.hpp"
#include "parallel/bucketed_sync.hpp"
#include "train/step.hpp"

using namespace attnlab;

namespace {

// Rank 0 of two; the other rank's gradient is 0.5 + 0.001·i at float i of the block, its token
// count `remote_tokens`; a started sum adds that rank's share at once.
struct FakePeer : Communicator {
  const float* base = nullptr;
  int64_t remote_tokens = 9, own_tokens = 0;
  const char* name() const override { return "fake"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  void allreduce_sum(float* p, size_t n) override { iallreduce_sum(p, n); }
  void iallreduce_sum(float* p, size_t n) override {
    const size_t off = size_t(p - base);
    const float share = float(double(remote_tokens) / double(remote_tokens + own_tokens));
    for (size_t i = 0; i < n; ++i) p[i] += share * (0.5f + 0.001f * float(off + i));
  }
  void wait_all() override {}
  void broadcast(void*, size_t, int) override {}
  void barrier() override {}
  double allreduce_double(double x, ReduceOp) override { return x + 2.0 * double(remote_tokens); }
  int64_t allreduce_int64(int64_t x, ReduceOp) override { return x + remote_tokens; }
};

// Records how many buckets had started when reduce() was called.
struct WatchedSync : BucketedGradientSync {
  using BucketedGradientSync::BucketedGradientSync;
  size_t started_before_reduce = 0;
  double reduce(ParamArena& P, double loss, int64_t tokens) override {
    started_before_reduce = buckets_started();
    return BucketedGradientSync::reduce(P, loss, tokens);
  }
};

// The same sync with the overlap switched off: everything is reduced after backward.
struct LateSync : WatchedSync {
  using WatchedSync::WatchedSync;
  void begin(ParamArena&, int64_t) override {}
  void grads_ready(size_t, size_t) override {}
};

nlohmann::json config(const std::string& model, bool tied) {
  return {
      {"model", model}, {"src_vocab", 14}, {"tgt_vocab", 14},        {"d_model", 16},
      {"heads", 2},     {"d_ff", 32},      {"enc_layers", 2},        {"dec_layers", 2},
      {"dropout", 0.0}, {"max_len", 16},   {"tie_embeddings", tied}, {"pos_encoding", "learned"}};
}

Batch batch() { return make_batch({{{3, 4, 5}, {6, 7, 8}}, {{8, 9, 10}, {10, 11, 3}}}); }

std::vector<float> values(Model& m) {
  const float* v = m.params().values();
  return std::vector<float>(v, v + m.params().total());
}

// One forward/backward of m on b with a listener on its arena: every gradient float is reported
// exactly once, the first report is from the end of the arena (where buckets start), and what
// each report covered is unchanged at the end of backward (it was final).
void require_reports_final(Model& m, const Batch& b, size_t min_reports = 5) {
  ParamArena& P = m.params();
  const size_t total = size_t(P.total());
  std::vector<int> times(total, 0);
  std::vector<std::pair<size_t, std::vector<float>>> at_report;  // the floats when reported
  P.set_grads_ready([&](size_t offset, size_t n) {
    REQUIRE(offset + n <= total);
    for (size_t i = offset; i < offset + n; ++i) ++times[i];
    at_report.push_back({offset, std::vector<float>(P.grads() + offset, P.grads() + offset + n)});
  });
  P.zero_grad();
  m.forward(b, true, nullptr, 0.f);
  m.backward();
  P.set_grads_ready(nullptr);
  CHECK(std::all_of(times.begin(), times.end(), [](int t) { return t == 1; }));
  REQUIRE(at_report.size() >= min_reports);
  CHECK(at_report.front().first > total / 2);
  bool final = true;
  for (const auto& [offset, floats] : at_report)
    final = final && std::equal(floats.begin(), floats.end(), P.grads() + offset);
  CHECK(final);
}

}  // namespace

TEST_CASE("dist: the Transformer's backward reports each gradient once, when it is final",
          "[dist]") {
  for (const std::string model : {"transformer", "lm", "encoder"}) {
    for (bool tied : {false, true}) {
      INFO(model << (tied ? ", tied embeddings" : ""));
      require_reports_final(*make_model(config(model, tied), cpu_kernels(), 3), batch());
    }
  }
}

TEST_CASE("dist: RNNsearch's and RNNencdec's backward report each gradient once, when final",
          "[dist]") {
  for (const std::string model : {"rnnsearch", "rnnencdec"}) {
    for (const std::string encoder : {"bigru", "gru"}) {
      INFO(model << ", " << encoder);
      const nlohmann::json cfg = {{"model", model}, {"src_vocab", 14}, {"tgt_vocab", 14},
                                  {"emb", 8},       {"hidden", 16},    {"encoder", encoder}};
      require_reports_final(*make_model(cfg, cpu_kernels(), 3), batch());
    }
  }
}

TEST_CASE("dist: Luong's backward reports each gradient once, when final", "[dist][luong]") {
  for (const std::string score : {"dot", "general", "concat"}) {
    INFO(score);
    const nlohmann::json cfg = {{"model", "luong"}, {"src_vocab", 14}, {"tgt_vocab", 14},
                                {"emb", 8},         {"hidden", 8},     {"score", score}};
    require_reports_final(*make_model(cfg, cpu_kernels(), 3), batch());
  }
}

TEST_CASE("dist: the pointer network's backward reports each gradient once, when final", "[dist]") {
  const auto task = make_task("convex-hull", {{"n_min", 6}, {"n_max", 6}});
  Rng rng(4);
  const Batch b = task->sample_batch(rng, Split::Train, 3);
  for (const std::string encoder : {"lstm", "rpw"}) {
    for (int embed : {0, 8}) {
      INFO(encoder << ", embed " << embed);
      const nlohmann::json cfg = {{"model", "pointer"}, {"hidden", 16},   {"attn", 16},
                                  {"glimpse", true},    {"embed", embed}, {"encoder", encoder},
                                  {"min_outputs", 3}};
      // pointer, glimpse, decoder, encoder (or read/process), embedding (when there is one)
      const size_t reports = encoder == "lstm" && embed > 0 ? 5 : 4;
      require_reports_final(*make_model(cfg, cpu_kernels(), 3), b, reports);
    }
  }
}

TEST_CASE("dist: the step starts buckets during backward, with the result of a late reduce",
          "[dist]") {
  const Batch b = batch();
  long tokens = 0;
  for (int32_t t : b.tgt_out) tokens += t != 0;
  const StepOptions o{1, 1e-2f, 1.f, 0.f};

  auto early = make_model(config("transformer", false), cpu_kernels(), 11);
  auto late = make_model(config("transformer", false), cpu_kernels(), 11);
  REQUIRE(values(*early) == values(*late));
  FakePeer peer_early, peer_late;
  peer_early.base = early->params().grads();
  peer_late.base = late->params().grads();
  peer_early.own_tokens = peer_late.own_tokens = tokens;
  WatchedSync sync_early(peer_early, 512 * sizeof(float));
  LateSync sync_late(peer_late, 512 * sizeof(float));
  Adam adam_early(early->params()), adam_late(late->params());

  const StepInfo se = train_step(*early, adam_early, b, o, nullptr, &sync_early);
  const StepInfo sl = train_step(*late, adam_late, b, o, nullptr, &sync_late);
  const size_t buckets = sync_early.buckets().size();
  REQUIRE(buckets > 8);
  // Every parameter is reported by the end of backward, so every bucket started before reduce()
  // (the last ones, holding the source embeddings, just before); without the overlap, none did.
  CHECK(sync_early.started_before_reduce == buckets);
  CHECK(sync_late.started_before_reduce == 0);
  CHECK(sync_early.global_tokens() == tokens + 9);
  CHECK(se.loss == sl.loss);
  CHECK(se.grad_norm == sl.grad_norm);
  CHECK(values(*early) == values(*late));
  // The routing ends with the step: a later backward reports to nobody.
  early->forward(b, true, nullptr, 0.f);
  CHECK_NOTHROW(early->backward());
}
