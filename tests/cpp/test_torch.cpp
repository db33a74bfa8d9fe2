// The encoder-decoder against PyTorch's nn.Transformer (fixtures written by
// tests/reference/gen_transformer.py): PyTorch's initial weights load by their state_dict
// names, and the logits, the label-smoothed loss, every parameter gradient and a 10-step Adam
// loss history agree on a padded batch.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "io/checkpoint.hpp"
#include "seq_fixtures.hpp"
#include "tolerances.hpp"
#include "train/optim.hpp"

using namespace attnlab;
using attnlab::test::kTorchAbs;
using attnlab::test::kTorchRel;

namespace {

struct Fixture {
  SafeTensors ref = read_safetensors(ATTNLAB_FIXTURES "/transformer_small_ref.safetensors");
  std::unique_ptr<Model> model =
      load_checkpoint(ATTNLAB_FIXTURES "/transformer_small.safetensors", cpu_kernels());
  Batch batch = test::fixture_batch(ref);
  std::vector<float> f32(const std::string& name) const { return test::fixture_f32(ref, name); }
};

bool close(double a, double b) { return test::torch_close(a, b); }

}  // namespace

TEST_CASE("torch: nn.Transformer logits, loss and every gradient", "[torch]") {
  Fixture f;
  const float smoothing = std::stof(f.ref.metadata.at("smoothing"));
  f.model->params().zero_grad();
  const double loss = f.model->forward(f.batch, false, nullptr, smoothing);
  CHECK(close(loss, f.f32("loss")[0]));
  const std::vector<float> z = f.model->logits(), zr = f.f32("logits");
  REQUIRE(z.size() == zr.size());
  int bad = 0;
  for (size_t i = 0; i < z.size(); ++i) bad += !close(z[i], zr[i]);
  CHECK(bad == 0);
  f.model->backward();
  const SafeTensors g = model_tensors(*f.model, true);
  int checked = 0;
  for (const StTensor& t : g.tensors) {
    const std::vector<float> a = t.to_f32(), b = f.f32("grad." + t.name);
    REQUIRE(a.size() == b.size());
    int wrong = 0;
    for (size_t i = 0; i < a.size(); ++i)
      wrong += std::fabs(a[i] - b[i]) > kTorchAbs * 0.01 + kTorchRel * std::fabs(b[i]);
    INFO(t.name);
    CHECK(wrong == 0);
    ++checked;
  }
  CHECK(checked == int(f.model->params().list().size()));
}

TEST_CASE("torch: 10 Adam steps follow PyTorch's loss history", "[torch]") {
  Fixture f;
  const float smoothing = std::stof(f.ref.metadata.at("smoothing"));
  const float lr = std::stof(f.ref.metadata.at("adam_lr"));
  const std::vector<float> hist = f.f32("adam_loss_history");
  Adam adam(f.model->params());
  for (size_t step = 0; step < hist.size(); ++step) {
    f.model->params().zero_grad();
    const double loss = f.model->forward(f.batch, true, nullptr, smoothing);
    INFO("step " << step << " ours " << loss << " torch " << hist[step]);
    CHECK(close(loss, hist[step]));
    f.model->backward();
    adam.step(lr);
  }
}
