// Trains a tiny Transformer to reverse sequences of symbols, prints its progress and its
// accuracy on held-out sequences (sources it never saw), shows one reversal, and saves it.
//   train_reverse [steps = 400] [out = reverse.safetensors]
#include <attnlab/attnlab.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 400;
  const std::string out = argc > 2 ? argv[2] : "reverse.safetensors";
  try {
    std::printf("attnlab %s\n", attnlab::version().c_str());
    attnlab::set_threads(1);
    // The same JSON as `attn train --config` and the JS API's createSession.
    attnlab::Session s = attnlab::Session::create(R"({
      "model": {"model": "transformer", "d_model": 32, "heads": 4, "d_ff": 64,
                "enc_layers": 2, "dec_layers": 2, "dropout": 0},
      "task": "reverse", "task_options": {"min_len": 2, "max_len": 6, "symbols": 8},
      "seed": 1,
      "train": {"batch": 64, "schedule": "constant", "lr": 0.003}})");
    const attnlab::ModelInfo info = s.info();
    std::printf("model: %s, %ld parameters, task %s\n", info.kind.c_str(), info.parameters,
                info.task.c_str());

    const attnlab::TrainReport r = s.train(
        steps,
        [](const attnlab::Progress& p) {
          std::printf("step %4d/%d  loss %.4f  lr %.4f\n", p.done, p.total, p.loss, p.lr);
          return true;  // false would stop here
        },
        50);
    std::printf("trained %d steps in %.1f s (%ld target tokens)\n", r.steps, r.seconds, r.tokens);

    const attnlab::Evaluation e = s.evaluate(500, 1234);
    std::printf("held-out: loss %.4f, token accuracy %.4f, sequence accuracy %.4f (%d sequences)\n",
                e.loss, e.token_accuracy, e.sequence_accuracy, e.samples);

    // One held-out source through the model. Examples come as a padded [1, L] batch; row 0
    // without its padding (a view) goes in as it is.
    const attnlab::Examples ex = s.examples(1);
    const auto row = xt::view(ex.src, 0, xt::all());
    const auto len = static_cast<std::ptrdiff_t>(xt::sum(xt::not_equal(row, 0))());
    const attnlab::Translation t = s.translate(xt::view(ex.src, 0, xt::range(0, len)));
    std::printf("reverse of [%s] -> [%s] (expected [%s])\n", ex.src_text[0].c_str(), t.text.c_str(),
                ex.tgt_text[0].c_str());

    s.save(out);
    std::printf("saved %s\n", out.c_str());
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "train_reverse: %s\n", e.what());
    return 1;
  }
  return 0;
}
