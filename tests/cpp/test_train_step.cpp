// The one training step (train/step.hpp): a GradientSync is called after backward with the
// local loss and the local count of non-pad target tokens, and what it does to the gradients
// and the loss reaches the clip, the result and the Adam update.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "data/task.hpp"
#include "train/step.hpp"

using namespace attnlab;

namespace {

// Stands in for an all-reduce: records its arguments, scales the gradients and the loss.
class ScalingSync : public GradientSync {
 public:
  explicit ScalingSync(float scale) : scale_(scale) {}
  double reduce(ParamArena& P, double local_loss, int64_t local_tokens) override {
    ++calls;
    loss = local_loss;
    tokens = local_tokens;
    P.kernels().scale(P.grads(), scale_, P.grads(), P.total());
    return local_loss * scale_;
  }
  int calls = 0;
  double loss = 0;
  int64_t tokens = -1;

 private:
  float scale_;
};

std::vector<float> values(Model& m) {
  const float* v = m.params().values();
  return std::vector<float>(v, v + m.params().total());
}

}  // namespace

TEST_CASE("train step: a GradientSync sees the batch's tokens and its effect reaches Adam",
          "[train]") {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 12}, {"tgt_vocab", 12},
                              {"d_model", 16},          {"heads", 2},      {"d_ff", 32},
                              {"enc_layers", 1},        {"dec_layers", 1}, {"dropout", 0.0},
                              {"max_len", 16}};
  // rows of different lengths, so the batch has pad targets the count must leave out
  const Batch b = make_batch({{{3, 4, 5}, {6, 7}}, {{8, 9}, {10, 11, 3, 4}}});
  long tokens = 0;
  for (int32_t t : b.tgt_out) tokens += t != 0;
  REQUIRE(tokens == 3 + 5);
  REQUIRE(long(b.tgt_out.size()) > tokens);
  const StepOptions o{1, 1e-2f, 0.f, 0.f};  // no clipping: the scale shows in the norm

  auto plain = make_model(cfg, cpu_kernels(), 5);
  Adam adam_plain(plain->params());
  const std::vector<float> before = values(*plain);
  const StepInfo p = train_step(*plain, adam_plain, b, o, nullptr);
  const std::vector<float> after_plain = values(*plain);

  auto synced = make_model(cfg, cpu_kernels(), 5);
  REQUIRE(values(*synced) == before);
  Adam adam_synced(synced->params());
  ScalingSync sync(-2.f);  // reversed gradients: Adam's first step moves the other way
  const StepInfo s = train_step(*synced, adam_synced, b, o, nullptr, &sync);
  const std::vector<float> after_synced = values(*synced);

  CHECK(sync.calls == 1);
  CHECK(sync.tokens == tokens);
  CHECK(s.tokens == tokens);
  CHECK(sync.loss == p.loss);
  CHECK(s.loss == -2.0 * p.loss);
  CHECK(s.grad_norm == Approx(2.0 * p.grad_norm).epsilon(1e-5));
  CHECK(s.lr == 1e-2f);
  // Adam's first step moves each weight by lr * g / (|g| + eps): by -lr * sign(g) wherever
  // |g| >> eps, so the reversed gradients move those weights by the opposite amount
  long moved = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const float dp = after_plain[i] - before[i], ds = after_synced[i] - before[i];
    if (std::fabs(dp) < 0.999f * o.lr) continue;  // |g| near eps (or 0): not a clean ±lr step
    ++moved;
    CHECK(ds == Approx(-dp).epsilon(1e-3));
  }
  CHECK(moved > long(before.size()) / 2);
}

TEST_CASE("train step: without a sync the step is forward, backward, clip and Adam", "[train]") {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 12}, {"tgt_vocab", 12},
                              {"d_model", 16},          {"heads", 2},      {"d_ff", 32},
                              {"enc_layers", 1},        {"dec_layers", 1}, {"dropout", 0.0},
                              {"max_len", 16}};
  const Batch b = make_batch({{{3, 4, 5}, {6, 7}}, {{8, 9}, {10, 11, 3, 4}}});
  auto a = make_model(cfg, cpu_kernels(), 5), ref = make_model(cfg, cpu_kernels(), 5);
  Adam adam_a(a->params()), adam_ref(ref->params());
  const StepInfo s = train_step(*a, adam_a, b, {3, 5e-3f, 0.5f, 0.1f}, nullptr);
  ref->params().zero_grad();
  const double loss = ref->forward(b, true, nullptr, 0.1f);
  ref->backward();
  const float norm = clip_grad_norm(ref->params(), 0.5f);
  adam_ref.step(5e-3f);
  CHECK(s.step == 3);
  CHECK(s.loss == loss);
  CHECK(s.grad_norm == norm);
  CHECK(values(*a) == values(*ref));
  // a non-finite loss stops before the update
  auto c = make_model(cfg, cpu_kernels(), 5);
  Adam adam_c(c->params());
  const std::vector<float> before = values(*c);
  const auto nan_loss = [] { return std::nan(""); };
  CHECK_THROWS_WITH(train_step(c->params(), adam_c, nan_loss, 1, {7, 1e-3f, 1.f, 0.f}),
                    Catch::Contains("training step 7: the loss is not finite"));
  CHECK(values(*c) == before);
  CHECK(adam_c.steps() == 0);
}

TEST_CASE("train step: SGD with momentum keeps a velocity u = mu u + g and moves p by -lr u",
          "[train]") {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 12}, {"tgt_vocab", 12},
                              {"d_model", 16},          {"heads", 2},      {"d_ff", 32},
                              {"enc_layers", 1},        {"dec_layers", 1}, {"dropout", 0.0},
                              {"max_len", 16}};
  const Batch b = make_batch({{{3, 4, 5}, {6, 7}}, {{8, 9}, {10, 11, 3, 4}}});
  const float lr = 0.05f, mu = 0.8f;
  AdamOptions o;
  o.kind = "sgd";
  o.momentum = mu;
  auto a = make_model(cfg, cpu_kernels(), 5), ref = make_model(cfg, cpu_kernels(), 5);
  Adam sgd(a->params(), o);
  const long n = ref->params().total();
  std::vector<float> u(size_t(n), 0.f);
  for (int step = 1; step <= 3; ++step) {
    train_step(*a, sgd, b, {step, lr, 0.f, 0.f}, nullptr);
    // the same step by hand on the twin model
    ref->params().zero_grad();
    ref->forward(b, true, nullptr, 0.f);
    ref->backward();
    const float* g = ref->params().grads();
    float* p = ref->params().values();
    for (long i = 0; i < n; ++i) {
      u[size_t(i)] = mu * u[size_t(i)] + g[i];
      p[i] -= lr * u[size_t(i)];
    }
    const std::vector<float> got = values(*a), want = values(*ref);
    long off = 0;
    for (long i = 0; i < n; ++i) off += std::fabs(got[size_t(i)] - want[size_t(i)]) > 1e-6f;
    CHECK(off == 0);
    // the velocity is the checkpoint's first buffer
    CHECK(sgd.first_moments()[0] == Approx(u[0]).margin(1e-7));
  }
  CHECK(sgd.steps() == 3);
  // momentum 0 is plain SGD: p -= lr g
  o.momentum = 0.f;
  auto c = make_model(cfg, cpu_kernels(), 5);
  Adam plain(c->params(), o);
  const std::vector<float> before = values(*c);
  train_step(*c, plain, b, {1, lr, 0.f, 0.f}, nullptr);
  const float* g = c->params().grads();
  for (long i = 0; i < n; i += 97)
    CHECK(values(*c)[size_t(i)] == Approx(before[size_t(i)] - lr * g[i]).margin(1e-6));
  // an unknown kind or a momentum outside [0, 1) is refused
  o.kind = "rmsprop";
  CHECK_THROWS_WITH(Adam(c->params(), o), Catch::Contains("unknown optimizer"));
  o.kind = "sgd";
  o.momentum = 1.f;
  CHECK_THROWS_WITH(Adam(c->params(), o), Catch::Contains("momentum must be in [0, 1)"));
}
