// Recurrent models end to end: finite differences through every parameter tensor of RNNsearch
// (additive and dot scores), RNNencdec and the pointer network (through Model::forward on a
// point batch), alignment/decoding shapes, the pointer's decoding and its lr schedule.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "data/point_task.hpp"
#include "eval/decode.hpp"
#include "gradcheck.hpp"
#include "models/rnnsearch.hpp"
#include "seq_fixtures.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

void check_rnn(nlohmann::json cfg) {
  auto model = make_model(cfg, cpu_kernels(), 3);
  const Batch b = test::ragged_batch();
  auto loss = [&] { return model->forward(b, true, nullptr, 0.1f); };
  test::check_model_grads(*model, loss, 5);
}

nlohmann::json small(const std::string& kind) {
  return {{"model", kind}, {"src_vocab", 9}, {"tgt_vocab", 9},
          {"emb", 5},      {"hidden", 4},    {"attn", 6}};
}

}  // namespace

TEST_CASE("grad: RNNsearch with additive attention", "[grad]") { check_rnn(small("rnnsearch")); }

TEST_CASE("grad: RNNsearch with dot-product attention", "[grad]") {
  auto cfg = small("rnnsearch");
  cfg["score"] = "dot";
  check_rnn(cfg);
}

TEST_CASE("grad: RNNencdec (fixed context vector)", "[grad]") { check_rnn(small("rnnencdec")); }

TEST_CASE("grad: RNNencdec with a one-way GRU encoder", "[grad]") {
  nlohmann::json c = small("rnnencdec");
  c["encoder"] = "gru";
  check_rnn(c);
}

TEST_CASE("one-way encoder: the backward GRU's weights no longer reach the output", "[grad]") {
  for (const std::string enc : {"bigru", "gru"}) {
    nlohmann::json c = small("rnnencdec");
    c["encoder"] = enc;
    auto model = make_model(c, cpu_kernels(), 5);
    CHECK(model->config()["encoder"] == enc);
    const Batch b = test::ragged_batch();
    model->forward(b, false, nullptr, 0.f);
    const std::vector<float> before = model->logits();
    ParamArena& P = model->params();
    for (const ParamInfo& p : P.list())
      if (p.name.rfind("encoder.bwd", 0) == 0)
        for (long i = 0; i < p.numel; ++i) P.val(P.find(p.name))[i] += 0.5f;
    model->forward(b, false, nullptr, 0.f);
    const std::vector<float> after = model->logits();
    float moved = 0;
    for (size_t i = 0; i < before.size(); ++i)
      moved = std::max(moved, std::abs(after[i] - before[i]));
    INFO(enc);
    if (enc == "gru")
      CHECK(moved == 0.f);
    else
      CHECK(moved > 1e-3f);
  }
  nlohmann::json bad = small("rnnencdec");
  bad["encoder"] = "lstm";
  CHECK_THROWS_WITH(make_model(bad, cpu_kernels(), 1), Catch::Contains("encoder must be"));
}

TEST_CASE("RNNsearch: alignment rows are distributions over the real source", "[model]") {
  auto model = make_model(small("rnnsearch"), cpu_kernels(), 3);
  const Batch b = test::ragged_batch();
  model->forward(b, false, nullptr, 0.f);
  const auto maps = model->attention();
  REQUIRE(maps.size() == 1);
  const AttentionMap& m = maps[0];
  CHECK(m.B == 3);
  CHECK(m.T == 4);
  CHECK(m.S == 4);
  const int len[3] = {4, 2, 1};
  for (int r = 0; r < 3; ++r)
    for (int t = 0; t < 4; ++t) {
      double sum = 0;
      for (int s = 0; s < 4; ++s) {
        const float w = m.weights[(size_t(r) * 4 + t) * 4 + s];
        if (s >= len[r]) CHECK(w == 0.f);
        sum += w;
      }
      CHECK(sum == Approx(1.0).epsilon(1e-5));
    }
  REQUIRE(decodes_stepwise(*model));
  const GreedyDecoded d = greedy_stepwise(*model, {{3, 4, 5}, {7}}, 6);
  REQUIRE(d.tokens.size() == 2);
  for (size_t r = 0; r < 2; ++r) {
    CHECK(d.tokens[r].size() <= 6);
    CHECK(d.alignment[r].size() == d.tokens[r].size());
    for (const auto& row : d.alignment[r]) CHECK(row.size() == (r == 0 ? 3u : 1u));
  }
}

TEST_CASE(
    "greedy_decode on the recurrent models steps the decoder and equals re-running each prefix",
    "[model]") {
  for (const char* kind : {"rnnsearch", "rnnencdec"}) {
    auto cfg = small(kind);
    cfg["hidden"] = 12;
    cfg["emb"] = 8;
    auto model = make_model(cfg, cpu_kernels(), 11);
    const std::vector<std::vector<int32_t>> srcs = {{3, 4, 5, 6}, {7}, {8, 3}, {5, 5, 5, 5, 5}};
    const int max_len = 7;
    // the reference: feed each row's own output back and re-run the whole prefix
    std::vector<std::vector<int32_t>> want(srcs.size());
    for (size_t r = 0; r < srcs.size(); ++r) {
      std::vector<int32_t> prefix = {int32_t(model->bos_id())};
      for (int step = 0; step < max_len; ++step) {
        Batch b;
        b.B = 1;
        b.S = int(srcs[r].size());
        b.T = int(prefix.size());
        b.src = srcs[r];
        b.tgt_in = prefix;
        b.tgt_out.assign(prefix.size(), int32_t(model->pad_id()));
        model->forward(b, false, nullptr, 0.f);
        const std::vector<float> z = model->logits();
        const float* last = z.data() + (prefix.size() - 1) * size_t(model->out_vocab());
        const int tok = int(std::max_element(last, last + model->out_vocab()) - last);
        if (tok == model->eos_id()) break;
        prefix.push_back(tok);
        want[r].push_back(tok);
      }
    }
    INFO(kind);
    CHECK(greedy_decode(*model, srcs, max_len) == want);
    size_t produced = 0;
    for (const auto& w : want) produced += w.size();
    CHECK(produced > 0);  // the comparison covers real outputs, not only immediate </s>
  }
}

namespace {

// A point batch of 2-D sets x [B, n, 2] with the given answers (input positions).
Batch point_batch(const std::vector<float>& x, int B, int n,
                  const std::vector<std::vector<int>>& targets, int dim = 2) {
  std::vector<Example> ex(static_cast<size_t>(B));
  for (int r = 0; r < B; ++r) {
    ex[size_t(r)].x.assign(x.begin() + long(r) * n * dim, x.begin() + long(r + 1) * n * dim);
    for (int j : targets[size_t(r)]) ex[size_t(r)].tgt.push_back(kFirstSymbol + j);
  }
  return make_batch(ex, dim);
}

void check_pointer(bool glimpse, bool permutation, const char* encoder = "lstm", int embed = 0) {
  nlohmann::json cfg = {{"model", "pointer"},
                        {"dim", 2},
                        {"hidden", 4},
                        {"attn", 5},
                        {"glimpse", glimpse},
                        {"permutation", permutation},
                        {"min_outputs", permutation ? 1 : 3},
                        {"encoder", encoder},
                        {"process_steps", 3},
                        {"embed", embed}};
  auto model = make_model(cfg, cpu_kernels(), 4);
  if (embed > 0) REQUIRE(model->params().find("embed.weight") >= 0);
  Rng rng(8);
  std::vector<float> x;
  for (int i = 0; i < 16; ++i) x.push_back(rng.uniform());
  const Batch b =
      point_batch(x, 2, 4,
                  permutation ? std::vector<std::vector<int>>{{2, 0, 3, 1}, {0, 1, 2, 3}}
                              : std::vector<std::vector<int>>{{0, 3, 1}, {1, 2, 3, 0}});
  auto loss = [&] { return model->forward(b, true, nullptr, 0.f); };
  test::check_model_grads(*model, loss, 5);
}

}  // namespace

TEST_CASE("grad: Ptr-Net (LSTM encoder/decoder, pointer attention)", "[grad]") {
  check_pointer(false, false);
}

TEST_CASE("grad: Ptr-Net with a glimpse and permutation masks", "[grad]") {
  check_pointer(true, true);
}

TEST_CASE("grad: Ptr-Net with the read-process-write set encoder", "[grad]") {
  check_pointer(true, true, "rpw");
}

TEST_CASE("grad: Ptr-Net with a learned input embedding (LSTM and rpw encoders)", "[grad]") {
  check_pointer(true, false, "lstm", 3);
  check_pointer(false, true, "rpw", 3);
}

TEST_CASE("Ptr-Net: constrained decoding outputs valid permutations and hulls", "[model]") {
  Rng rng(2);
  std::vector<float> x;
  for (int i = 0; i < 3 * 6 * 2; ++i) x.push_back(rng.uniform());
  for (bool perm : {true, false}) {
    nlohmann::json cfg = {
        {"model", "pointer"}, {"hidden", 8}, {"permutation", perm}, {"min_outputs", perm ? 1 : 3}};
    auto model = make_model(cfg, cpu_kernels(), 4);
    const PointDecoded d = decode_points(*model, x, 3, 6);
    for (const auto& o : d.order) {
      std::vector<int> s = o;
      std::sort(s.begin(), s.end());
      CHECK(std::unique(s.begin(), s.end()) == s.end());
      CHECK(int(o.size()) >= (perm ? 6 : 3));
      for (int i : o) CHECK((i >= 0 && i < 6));
    }
    for (const auto& steps : d.probs)
      for (const auto& row : steps) {
        CHECK(row.size() == 7u);
        double sum = 0;
        for (float p : row) sum += p;
        CHECK(sum == Approx(1.0).epsilon(1e-5));
      }
  }
  auto model = make_model({{"model", "pointer"}}, cpu_kernels(), 4);
  CHECK_THROWS_WITH(model->forward(Batch{}, false, nullptr, 0.f), Catch::Contains("point sets"));
  std::vector<float> bad = {0.1f, 0.2f, NAN, 0.3f, 0.5f, 0.5f};
  CHECK_THROWS_WITH(decode_points(*model, bad, 1, 3), Catch::Contains("finite"));
}

// With a beam as wide as the number of possible outputs (4! permutations) beam search is
// exhaustive: it must return the permutation the model scores highest when each of the 24 is
// scored teacher-forced, with the same log-probability. beam = 1 must equal greedy.
TEST_CASE("Ptr-Net: beam search finds the most probable permutation", "[pointer]") {
  const int n = 4;
  for (bool glimpse : {false, true}) {
    nlohmann::json cfg = {{"model", "pointer"},
                          {"hidden", 8},
                          {"permutation", true},
                          {"glimpse", glimpse},
                          {"embed", glimpse ? 6 : 0}};
    auto model = make_model(cfg, cpu_kernels(), 11);
    Rng rng(glimpse ? 5 : 6);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<float> x;
      for (int i = 0; i < 2 * n; ++i) x.push_back(rng.uniform());
      std::vector<int> perm = {0, 1, 2, 3}, best;
      double best_logp = -1e300;
      do {
        const Batch b = point_batch(x, 1, n, {perm});
        const double logp =
            -model->forward(b, false, nullptr, 0.f) * (n + 1);  // n outputs + the end symbol
        if (logp > best_logp) best_logp = logp, best = perm;
      } while (std::next_permutation(perm.begin(), perm.end()));
      const PointDecoded d = decode_points(*model, x, 1, n, 24);
      CHECK(d.order[0] == best);
      double logp = 0;
      for (size_t t = 0; t < d.probs[0].size(); ++t)
        logp += std::log(d.probs[0][t][t < size_t(n) ? size_t(d.order[0][t]) : size_t(n)]);
      CHECK(logp == Approx(best_logp).margin(1e-4));
      CHECK(decode_points(*model, x, 1, n, 1).order == decode_points(*model, x, 1, n).order);
    }
  }
  auto model = make_model({{"model", "pointer"}}, cpu_kernels(), 4);
  CHECK_THROWS_WITH(decode_points(*model, {0.1f, 0.2f}, 1, 1, 0), Catch::Contains("beam size"));
}

TEST_CASE("Ptr-Net training: lr held, then decayed exponentially to lr_final", "[pointer]") {
  Schedule o = pointer_train_options().schedule;
  o.lr = 1e-3f, o.lr_final = 1e-5f, o.decay_to = 300, o.decay_from = 100;
  CHECK(o.at(1) == Approx(1e-3));
  CHECK(o.at(100) == Approx(1e-3));
  CHECK(o.at(200) == Approx(1e-4));  // halfway through the decay: geometric mean
  CHECK(o.at(300) == Approx(1e-5));
  CHECK(o.at(1000) == Approx(1e-5));
  for (int s = 101; s <= 300; ++s) CHECK(o.at(s) < o.at(s - 1));
  o.lr_final = 0.f;
  CHECK(o.at(300) == Approx(1e-3));
}

// The pointer network's data and model go through the task registry, Model::forward(Batch),
// logits/attention and the one Trainer.
TEST_CASE("Ptr-Net through Model: registry tasks, a batch, logits, attention, Trainer",
          "[pointer]") {
  const auto names = task_names();
  for (const char* t : {"convex-hull", "tsp", "point-sort", "sort"})
    CHECK(std::find(names.begin(), names.end(), t) != names.end());
  CHECK(task_for_model("sort", "pointer") == "point-sort");
  CHECK(task_for_model("sort", "transformer") == "sort");
  CHECK(task_for_model("tsp", "pointer") == "tsp");
  CHECK(make_task("sort")->input_dim() == 0);
  CHECK(make_task("point-sort")->input_dim() == 1);
  CHECK(make_task("convex-hull")->default_model() == "pointer");
  CHECK_THROWS_WITH(make_task("tsp", {{"n_max", 12}}), Catch::Contains("at most 10"));

  const auto task = make_task("convex-hull", {{"n_min", 5}, {"n_max", 7}});
  auto model = make_model(pointer_config_for(*task, 8, false), cpu_kernels(), 3);
  CHECK(model->input_dim() == 2);
  Rng rng(4);
  const Batch b = task->sample_batch(rng, Split::Train, 6);
  REQUIRE(b.dim == 2);
  REQUIRE((b.S >= 5 && b.S <= 7));
  REQUIRE(b.x.size() == size_t(6 * b.S * 2));
  CHECK(b.src.empty());
  const double loss = model->forward(b, false, nullptr, 0.f);
  CHECK(std::isfinite(loss));
  const int V = model->out_vocab();
  CHECK(V == kFirstSymbol + b.S);
  const std::vector<float> z = model->logits();
  REQUIRE(z.size() == size_t(b.B) * b.T * V);
  double nll = 0;
  long count = 0;
  for (size_t k = 0; k < b.tgt_out.size(); ++k)
    if (b.tgt_out[k] != kPad) nll -= z[k * size_t(V) + size_t(b.tgt_out[k])], ++count;
  CHECK(nll / double(count) == Approx(loss).epsilon(1e-4));
  const auto maps = model->attention();
  REQUIRE(maps.size() == 1);
  CHECK(maps[0].name == "pointer");
  CHECK((maps[0].B == b.B && maps[0].H == 1 && maps[0].T == b.T && maps[0].S == b.S + 1));
  for (int t = 0; t < b.T; ++t) {
    double sum = 0;
    for (int s = 0; s <= b.S; ++s) sum += maps[0].weights[size_t(t) * (b.S + 1) + size_t(s)];
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }
  Batch tokens;
  tokens.B = 1, tokens.S = 1, tokens.T = 1, tokens.src = {3}, tokens.tgt_in = {1};
  tokens.tgt_out = {2};
  CHECK_THROWS_WITH(model->forward(tokens, false, nullptr, 0.f), Catch::Contains("point sets"));
  Batch bad = b;
  bad.tgt_out[0] = kFirstSymbol + b.S;
  CHECK_THROWS_WITH(model->forward(bad, false, nullptr, 0.f), Catch::Contains("names no input"));

  TrainOptions o = pointer_train_options();
  o.batch = 16, o.seed = 5;
  Trainer tr(*model, *task, o);
  const StepInfo s1 = tr.step();
  CHECK(std::isfinite(s1.loss));
  CHECK(s1.lr == Approx(1e-3));
  const auto reverse = make_task("reverse");
  CHECK_THROWS_WITH(Trainer(*model, *reverse, o), Catch::Contains("float features"));
  auto transformer =
      make_model({{"model", "transformer"}, {"src_vocab", 8}, {"tgt_vocab", 8}}, cpu_kernels(), 1);
  CHECK_THROWS_WITH(decode_points(*transformer, {0.5f}, 1, 1), Catch::Contains("point sets"));
}

TEST_CASE("recurrent models refuse a kernel table without the recurrent kernels", "[model]") {
  KernelTable partial = cpu_kernels();
  partial.name = "partial";
  partial.gru_cell_forward = nullptr;
  CHECK_THROWS_WITH(make_model(small("rnnsearch"), partial, 1),
                    Catch::Contains("recurrent kernels"));
  CHECK_THROWS_WITH(make_model({{"model", "pointer"}}, partial, 1), Catch::Contains("partial"));
}
