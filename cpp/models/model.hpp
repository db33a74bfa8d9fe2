// The model interface every trainable model implements (Transformer, decoder-only LM,
// encoder-only, and the recurrent models), plus the batch format and the model registry.
// A model owns its parameters (ParamArena) and activations (Workspace); forward() runs on a
// padded batch with teacher forcing and returns the mean loss over non-pad targets; backward()
// adds that loss's gradients into the parameter gradients. Everything goes through the
// KernelTable given at construction, so the same model runs on the CPU, in WASM and on CUDA.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layers/arena.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

// A padded batch. Rows shorter than S / T are filled with the pad id; tgt_in starts with bos,
// tgt_out is tgt_in shifted left and ends with eos (pad targets are ignored by the loss).
struct Batch {
  int B = 0, S = 0, T = 0;
  std::vector<int32_t> src;      // [B,S]
  std::vector<int32_t> tgt_in;   // [B,T]
  std::vector<int32_t> tgt_out;  // [B,T]
};

// One attention map of the last forward pass, copied to the host: weights [B,H,T,S].
struct AttentionMap {
  std::string name;  // e.g. "decoder.layers.0.multihead_attn"
  int B = 0, H = 0, T = 0, S = 0;
  std::vector<float> weights;
};

class Model {
 public:
  explicit Model(const KernelTable& kt) : kt_(kt), params_(kt), ws_(kt) {}
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // The full config (the JSON stored in checkpoints under __metadata__["attnlab"]).
  const nlohmann::json& config() const { return config_; }
  ParamArena& params() { return params_; }
  const KernelTable& kernels() const { return kt_; }
  // Extra checkpoint names that share another parameter's storage (tied weights).
  virtual std::vector<std::pair<std::string, int>> aliases() const { return {}; }

  // Teacher-forced forward pass; returns the mean (label-smoothed) loss over non-pad targets.
  // train = true enables dropout, drawn from rng.
  virtual double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) = 0;
  // Adds the gradients of the last forward's loss into params().grads().
  virtual void backward() = 0;
  // Logits of the last forward at the target positions, [B,T,V], copied to the host.
  virtual std::vector<float> logits() const = 0;
  virtual int out_vocab() const = 0;
  // Whether decoding generates tokens one by one (encoder-decoder, LM) or tags each source
  // position at once (encoder-only).
  virtual bool autoregressive() const { return true; }
  // The attention weights of the last forward, one map per attention sublayer.
  virtual std::vector<AttentionMap> attention() const = 0;

  int pad_id() const { return config_.value("pad_id", 0); }
  int bos_id() const { return config_.value("bos_id", 1); }
  int eos_id() const { return config_.value("eos_id", 2); }

 protected:
  const KernelTable& kt_;
  ParamArena params_;
  Workspace ws_;
  nlohmann::json config_;
};

// Builds a registered model kind from its config (config["model"]); parameters are
// initialised from `seed`. Throws attnlab::Error for an unknown kind or a bad config.
std::unique_ptr<Model> make_model(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed);
// The registered kinds, for help text.
std::vector<std::string> model_kinds();

}  // namespace attnlab
