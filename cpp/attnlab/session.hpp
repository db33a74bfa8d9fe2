// attnlab's public C++ API: a session (one model and what trains it) you create from a config or
// load from a .safetensors checkpoint, train on one of the engine's tasks, run, inspect and save.
// Everything that crosses this boundary is an xtensor (token ids, logits, attention weights) or a
// plain standard type; the engine behind it works on raw buffers and stays out of sight (pimpl).
//
//   #include <attnlab/attnlab.hpp>
//   auto m = attnlab::Session::create(R"({"model": {"model": "transformer", "d_model": 32,
//       "heads": 4, "d_ff": 64, "enc_layers": 2, "dec_layers": 1, "dropout": 0},
//       "task": "reverse", "seed": 1})");
//   m.train(300, [](const attnlab::Progress& p) { std::printf("%d %.3f\n", p.step, p.loss); return
//   true; }); std::printf("%.3f\n", m.evaluate(500).sequence_accuracy);
//   m.save("reverse.safetensors");
//
// Token ids: 0 is <pad>, 1 <s>, 2 </s>; a task's symbols start at 3. Sequences passed in and
// returned carry no <s>/</s>. A batch is a [B, L] tensor whose rows end at their first 0.
// Every failure (bad config, unreadable checkpoint, an id outside the vocabulary, ...) throws
// attnlab::Error (a std::runtime_error) with one readable line; the model is unchanged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <xtensor/xtensor.hpp>

#include "attnlab/error.hpp"
#include "attnlab/version.hpp"

namespace attnlab {

// Tensors at the boundary: row-major xtensor with std::allocator, spelled out so the type is
// the same whether or not the including program turns on XTENSOR_USE_XSIMD (which changes
// xtensor's default allocator). With default xtensor settings these are xt::xtensor<T, N>.
template <class T, std::size_t N>
using tensor = xt::xtensor<T, N, xt::layout_type::row_major, std::allocator<T>>;
using tokens = tensor<std::int32_t, 1>;       // one sequence, no <s>/</s>
using token_batch = tensor<std::int32_t, 2>;  // [B, L], rows padded with 0

// The version of the library this program links (the headers' is ATTNLAB_VERSION_STRING).
std::string version();
// Threads the CPU kernels use (n <= 0: every core); returns the count in effect.
int set_threads(int n);
// Kinds of model and task names the engine knows.
std::vector<std::string> model_kinds();
std::vector<std::string> task_names();

// One attention sublayer's weights from the last pass: [B, H, T, S] (T queries over S keys).
// Transformer names: "encoder.layers.0.self_attn", "decoder.layers.1.multihead_attn", ...;
// RNNsearch: "alignment" (H = 1).
struct AttentionWeights {
  std::string name;
  tensor<float, 4> weights;
};

struct Progress {
  int step = 0;             // optimizer steps taken so far (the model's count, across calls)
  int done = 0, total = 0;  // steps done / asked in this train() call
  double loss = 0;          // this step's training loss
  double lr = 0, grad_norm = 0;
  long tokens = 0;     // target tokens seen in this call
  double seconds = 0;  // since this call started
};
// Called after every `every` steps (and after the last); return false to stop early.
using ProgressCallback = std::function<bool(const Progress&)>;

struct TrainReport {
  tensor<float, 1> losses;  // one per step taken in this call
  int steps = 0;            // taken in this call
  int step = 0;             // the model's step count afterwards
  long tokens = 0;
  bool stopped = false;  // the callback returned false
  double seconds = 0;
};

struct Evaluation {
  double loss = 0;               // teacher-forced, per target token
  double token_accuracy = 0;     // teacher-forced argmax
  double sequence_accuracy = 0;  // greedy decoding, exact match
  int samples = 0;
};

struct Translation {
  tokens source, output;                   // ids, no <s>/</s>
  std::vector<std::string> source_tokens;  // readable tokens (task symbols or subwords)
  std::vector<std::string> output_tokens;
  std::string text;  // the output as text (subwords joined for models
                     // with a vocabulary, else tokens with spaces)
  // The last decoder layer's cross-attention, heads averaged: [output.size() + 1, S], row i
  // is what the decoder looked at when it produced output token i (the last row: </s>).
  tensor<float, 2> cross_attention;
};

struct ModelInfo {
  std::string kind;  // "transformer", "lm", "encoder", "rnnsearch", ...
  std::string task;  // "" when the model has none
  long parameters = 0;
  int step = 0;  // optimizer steps the weights have seen
  int src_vocab = 0, tgt_vocab = 0;
  int max_len = 0;
  bool has_vocabulary = false;  // a subword vocabulary travels with the checkpoint (text in/out)
  std::string config_json;      // the full model config
};

// Held-out (or training) examples of the model's task, padded into batches.
struct Examples {
  token_batch src, tgt;
  std::vector<std::string> src_text, tgt_text;
};

class Session {
 public:
  // A new model from a JSON config, the same keys as `attn train --config` and the JS API's
  // createSession: {"model": {...} | "transformer", "task": "reverse", "task_options": {...},
  // "seed": 1, "train": {"batch", "schedule", "lr", "lr_factor", "warmup", "clip",
  // "label_smoothing", "optimizer" ("adam" | "sgd": SGD with momentum), "momentum"}}.
  static Session create(const std::string& config_json);
  // A checkpoint written by `attn train`, the page or save(). `overrides_json` may set "task",
  // "task_options" and "train" (e.g. to train a checkpoint on another task).
  static Session load(const std::string& path, const std::string& overrides_json = "{}");
  static Session load_bytes(const std::vector<std::uint8_t>& bytes,
                            const std::string& overrides_json = "{}");

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  ModelInfo info() const;

  // Trains `steps` steps on the model's task (exactly as `attn train` with the same seed).
  TrainReport train(int steps, const ProgressCallback& on_progress = {}, int every = 1);
  // Held-out loss and accuracies on `samples` examples drawn with `seed`.
  Evaluation evaluate(int samples = 200, std::uint64_t seed = 1234);
  Examples examples(int n, bool held_out = true, std::uint64_t seed = 7) const;

  // Teacher-forced logits [B, T, V]: position t predicts tgt[t] (and t = len the </s>), so T is
  // the longest target row + 1. Leaves the pass's attention maps for attention().
  tensor<float, 3> forward(const token_batch& src, const token_batch& tgt);
  // The attention maps of the last forward() or translate().
  std::vector<AttentionWeights> attention() const;

  // Greedy (beam = 1) or beam-search decoding of one source; max_len 0: the model's limit.
  tokens decode(const tokens& src, int beam = 1, int max_len = 0, float alpha = 0.6f);
  // decode() plus readable tokens and the cross-attention of the chosen output.
  Translation translate(const tokens& src, int beam = 1, int max_len = 0, float alpha = 0.6f);
  // Text in, text out, for checkpoints that carry a subword vocabulary (`attn train --task
  // parallel`): the text is encoded, decoded with beam search and detokenized.
  Translation translate(const std::string& text, int beam = 4, int max_len = 0, float alpha = 0.6f);

  // Subword vocabulary of the checkpoint (has_vocabulary()), else an Error.
  tokens encode(const std::string& text) const;
  std::string detokenize(const tokens& ids) const;
  // Readable names of ids: the task's symbols, the vocabulary's subwords, or the numbers.
  std::vector<std::string> source_tokens(const tokens& ids) const;
  std::vector<std::string> target_tokens(const tokens& ids) const;

  void save(const std::string& path) const;  // atomically (temporary file, then rename)
  std::vector<std::uint8_t> save_bytes() const;

  // Any xtensor expression or view of ids (evaluated into a tensor first).
  template <class E>
  tokens decode(const xt::xexpression<E>& src, int beam = 1, int max_len = 0, float alpha = 0.6f) {
    return decode(tokens(src), beam, max_len, alpha);
  }
  template <class E>
  Translation translate(const xt::xexpression<E>& src, int beam = 1, int max_len = 0,
                        float alpha = 0.6f) {
    return translate(tokens(src), beam, max_len, alpha);
  }
  template <class E1, class E2>
  tensor<float, 3> forward(const xt::xexpression<E1>& src, const xt::xexpression<E2>& tgt) {
    return forward(token_batch(src), token_batch(tgt));
  }

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnlab
