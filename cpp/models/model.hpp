// The model interface every trainable model implements (Transformer, decoder-only LM,
// encoder-only, the recurrent models and the pointer network), the small interfaces of the
// capabilities only some kinds have (HeadInspection, IncrementalDecoding, StepwiseDecoding,
// PointDecoding), the batch format and the model registry.
// A model owns its parameters (ParamArena) and activations (Workspace); forward() runs on a
// padded batch with teacher forcing and returns the mean loss over non-pad targets; backward()
// adds that loss's gradients into the parameter gradients. Everything goes through the
// KernelTable given at construction, so the same model runs on the CPU, in WASM and on CUDA.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "models/config.hpp"

namespace attnlab {

// The special ids every task and model share; a task's own symbols start at kFirstSymbol.
constexpr int kPad = 0, kBos = 1, kEos = 2, kFirstSymbol = 3;

// A padded batch. Rows shorter than S / T are filled with the pad id; tgt_in starts with bos,
// tgt_out is tgt_in shifted left and ends with eos (pad targets are ignored by the loss), so
// tgt_out is always what the loss scores.
// A point batch (dim > 0, models with input_dim() == dim: the pointer network) carries float
// inputs instead of source ids: x [B,S,dim] holds S = n points per row (one n per batch), src
// is empty, and a target id names an input: kFirstSymbol + j is input j, eos the end symbol.
struct Batch {
  int B = 0, S = 0, T = 0;
  int dim = 0;                   // float features per source element (0: token ids)
  std::vector<int32_t> src;      // [B,S] (empty when dim > 0)
  std::vector<float> x;          // [B,S,dim] (empty when dim == 0)
  std::vector<int32_t> tgt_in;   // [B,T]
  std::vector<int32_t> tgt_out;  // [B,T]
};

// A model's size for one training batch, from its config before anything is allocated:
// parameters (values, gradients, Adam's two moments: 16 bytes each) and the activations one
// batch [B, S, T] keeps for backward (attention maps included).
struct SizeEstimate {
  double params = 0;       // parameter count
  double param_bytes = 0;  // values + gradients + Adam moments
  double activation_bytes = 0;
  double total() const { return param_bytes + activation_bytes; }
  static SizeEstimate of(double params, double activation_floats) {
    return {params, 16 * params, 4 * activation_floats};
  }
};

// Greedy decoding with one decoder step per output token: tokens (no <s>/</s>) and, for models
// that align (Model::aligns), each output step's attention over the source, alignment[b][i][j].
struct GreedyDecoded {
  std::vector<std::vector<int32_t>> tokens;
  std::vector<std::vector<std::vector<float>>> alignment;
};

// Decoding of point sets (PointDecoding::decode_points): per set the chosen inputs (0-based, the
// end symbol excluded) and each output step's distribution over the n inputs and the end (last).
struct PointDecoded {
  std::vector<std::vector<int>> order;
  std::vector<std::vector<std::vector<float>>> probs;  // [set][step][n + 1]
};

// One attention map of the last forward pass, copied to the host: weights [B,H,T,S].
struct AttentionMap {
  std::string name;  // e.g. "decoder.layers.0.multihead_attn"
  int B = 0, H = 0, T = 0, S = 0;
  std::vector<float> weights;
};

// Q, K and V of one multi-head attention sublayer of the last forward pass, per head, copied to
// the host: q [B,H,T,hs], k and v [B,H,S,hs] (hs = d_model/H). softmax(q kᵀ/√hs) is the
// sublayer's AttentionMap, and its weights times v are the heads' outputs.
struct AttentionParts {
  std::string name;  // as in AttentionMap
  int B = 0, H = 0, T = 0, S = 0, hs = 0;
  std::vector<float> q, k, v;
};

// One activation of a traced forward pass (ForwardTracing), copied to the host: `name` says
// where it was taken (e.g. "decoder.layers.0.self_attn.scores"), dims its shape, values the
// numbers in row-major order.
struct TracedTensor {
  std::string name;
  std::vector<int> dims;
  std::vector<float> values;
};

// One row of a traced forward pass: its tokens (the sequence the stack read, n positions; the
// decoder-only LM's is the row's source then its target input), the position whose logits are
// the first target's, and every intermediate activation of that row at all n positions, in the
// order the forward pass computed them.
struct ForwardTrace {
  std::vector<int32_t> tokens;
  int first = 0;
  std::vector<TracedTensor> tensors;
  // The tensor named `name` (throws attnlab::Error naming it when there is none).
  const TracedTensor& at(const std::string& name) const;
};

// Heads to mute, by attention sublayer name (AttentionMap::name) → head indices.
using HeadMask = std::map<std::string, std::vector<int>>;

// Incremental decoding of an encoder-decoder: the sources are encoded once, then each call of
// step() runs the decoder on one new token per row, attending over the keys and values that
// earlier steps left in a cache. Row r starts on source r (IncrementalDecoding::step_decoder);
// reorder() is beam search's selection: the new row i continues old row parents[i] (cache and
// source).
class StepDecoder {
 public:
  virtual ~StepDecoder() = default;
  // Appends tokens[r] (one per current row) at the next position and returns the logits of
  // the token after it, [rows, V], on the host.
  virtual std::vector<float> step(const std::vector<int32_t>& tokens) = 0;
  // The new rows continue parents[i] (indices of current rows; at most capacity() of them).
  virtual void reorder(const std::vector<int>& parents) = 0;
  virtual int rows() const = 0;
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

  // The source vocabulary (0: the model reads no token ids) and the longest sequence the model
  // takes (models without position limits: 65536), from the model's typed config.
  virtual int src_vocab() const { return 0; }
  // Float features per input element of the point batches the model reads (0: token batches).
  virtual int input_dim() const { return 0; }
  virtual int max_len() const { return 1 << 16; }
  // d_model of Noam's learning-rate schedule: the Transformer's width; 64 for the models that
  // have no such width (the value `attn train` and sessions have always used for them).
  virtual int schedule_width() const { return 64; }
  // Whether each row is its source then its target in one sequence (the decoder-only LM), so
  // that max_len bounds both together.
  virtual bool packs_source() const { return false; }

  // Whether attention().at(0) of a forward pass is the target-to-source alignment [B,1,T,S]
  // (and greedy_stepwise reports it): RNNsearch, not RNNencdec or the Transformers.
  virtual bool aligns() const { return false; }

  // The kind, the registry row's name (the config's "model").
  std::string kind() const;
  // The longest sequence the config allows: its max_len for a model with positions, 0 (no limit)
  // for a model without (whose max_len() is 1 << 16).
  int position_limit() const;

  int pad_id() const { return config_.value("pad_id", 0); }
  int bos_id() const { return config_.value("bos_id", 1); }
  int eos_id() const { return config_.value("eos_id", 2); }

 protected:
  const KernelTable& kt_;
  ParamArena params_;
  Workspace ws_;
  nlohmann::json config_;
};

// Capabilities only some kinds have: a model implements the interface, and callers ask for it
// with capability<T>(model) (a dynamic_cast; null when the model lacks it), or call the free
// functions below, which keep the answer of a model without it.

// Multi-head attention that an inspection can open up (the Transformers).
class HeadInspection {
 public:
  virtual ~HeadInspection() = default;
  // Q, K and V of every multi-head attention sublayer of the last forward, in attention()'s
  // order.
  virtual std::vector<AttentionParts> attention_parts() const = 0;
  // Heads whose output is zeroed in the following forward passes (an empty mask clears it).
  // Inference only: a training step with muted heads is an error. Unknown sublayer names or
  // head indices are errors.
  virtual void set_muted_heads(const HeadMask& mask) = 0;
  // Whether the target-side self-attention masks later positions (Transformer decoder, LM), a
  // mask set_causal(false) lifts; only an inspection does, to show what the mask prevents.
  virtual bool has_causal_mask() const = 0;
  virtual void set_causal(bool on) = 0;
};

// A forward pass that can be traced (the decoder-only and encoder-only Transformers): while
// tracing is on, forward passes also keep the two things the trace needs that they otherwise
// overwrite in place (the token embeddings before the positions are added, the attention scores
// before the softmax); off, it costs one test of a flag. trace(b) reads row b of the last
// forward pass, which must have run with tracing on; everything else it reports is what the
// pass left in its caches.
class ForwardTracing {
 public:
  virtual ~ForwardTracing() = default;
  virtual void set_tracing(bool on) = 0;
  virtual ForwardTrace trace(int row) const = 0;
};

// Incremental decoding with a cache (the encoder-decoder Transformer): a step decoder over
// `srcs` (row r on source r, room for `capacity` rows and `max_steps` tokens including <s>), or
// null while the model must re-run the whole prefix (an inspection lifted its causal mask or
// muted heads).
class IncrementalDecoding {
 public:
  virtual ~IncrementalDecoding() = default;
  virtual std::unique_ptr<StepDecoder> step_decoder(const std::vector<std::vector<int32_t>>& srcs,
                                                    int capacity, int max_steps) = 0;
};

// Recurrent decoders carry their state forward: greedy decoding with one decoder step per token
// instead of a re-run of the whole prefix (tokens, and the alignment for models that align).
class StepwiseDecoding {
 public:
  virtual ~StepwiseDecoding() = default;
  virtual GreedyDecoded greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                        int max_len) = 0;
};

// Models that read point sets (input_dim() > 0) decode x [B, n, input_dim()] into input
// positions: beam 1 greedily, else beam search; constrained = the masks of training (no input
// twice, the end symbol only when the output can be complete); only greedy may drop them.
class PointDecoding {
 public:
  virtual ~PointDecoding() = default;
  virtual PointDecoded decode_points(const std::vector<float>& x, int B, int n, int beam,
                                     bool constrained) = 0;
};

template <class T>
T* capability(Model& m) {
  return dynamic_cast<T*>(&m);
}
template <class T>
const T* capability(const Model& m) {
  return dynamic_cast<const T*>(&m);
}

// The capabilities as free functions: a model without the interface answers as every model
// once did (no parts; only the empty mask; no causal mask, only on; no step decoder; and an
// attnlab::Error naming the kind for stepwise or point decoding).
std::vector<AttentionParts> attention_parts(const Model& m);
void set_muted_heads(Model& m, const HeadMask& mask);
bool has_causal_mask(const Model& m);
void set_causal(Model& m, bool on);
std::unique_ptr<StepDecoder> step_decoder(Model& m, const std::vector<std::vector<int32_t>>& srcs,
                                          int capacity, int max_steps);
bool decodes_stepwise(const Model& m);
GreedyDecoded greedy_stepwise(Model& m, const std::vector<std::vector<int32_t>>& srcs, int max_len);
PointDecoded decode_points(Model& m, const std::vector<float>& x, int B, int n, int beam = 1,
                           bool constrained = true);

// What a kind is and how it trains by default, from its registry row: the front ends (attn
// train, sessions, the page) read these instead of comparing kind names.
struct TrainDefaults {
  float lr = 1e-3f;               // learning rate (Noam: the factor's base)
  int batch = 64;                 // rows per step (per rank when data-parallel)
  float clip = 1.f;               // global gradient-norm clip
  const char* schedule = "noam";  // "noam" | "constant"
};
struct KindInfo {
  const char* name = "";
  // A recurrent encoder-decoder (RNNsearch, RNNencdec, Luong, the pointer network): attn train
  // and attn eval take their recurrent-model path (sequence or point tasks, AER, per length).
  bool recurrent = false;
  bool packs_source = false;  // each row is source then target in one sequence (the LM)
  bool takes_points = false;  // reads point sets (float inputs), not token ids (pointer)
  bool aligns = false;        // attention().at(0) is the target-to-source alignment
  TrainDefaults train;
  nlohmann::json to_json() const;
};

// The model registry (registry.cpp), one row per kind: its name, its factory, its config check,
// its size estimate (the last two built from the kind's typed config) and its KindInfo. Every
// function throws attnlab::Error for a config without a string "model" or of an unknown kind.
// make_model builds the kind with parameters initialised from `seed` (throws for a bad config).
std::unique_ptr<Model> make_model(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed);
// Parses the kind's typed config: throws for any bad value, allocates nothing.
void check_model_config(const nlohmann::json& config);
// The size of the kind for one batch [B, S, T]. Fields are read without range checks (a config
// too large for memory is refused as such, before its values are validated); absent ones take
// the typed config's defaults.
SizeEstimate estimate_model(const nlohmann::json& config, int B, int S, int T);
// The registered kinds, for help text.
std::vector<std::string> model_kinds();
// The row of a kind (throws attnlab::Error naming the known kinds for an unknown one), or null.
const KindInfo& kind_info(const std::string& kind);
const KindInfo* find_kind_info(const std::string& kind);
// The config keys of a kind that a front end may set (attn train's model flags), with the ranges
// its typed config checks (throws for an unknown kind).
const ConfigKeys& config_keys(const std::string& kind);
// The row of the kind a config names (a checkpoint's, before a model is built); throws as above.
const KindInfo& kind_info_of(const nlohmann::json& config);

}  // namespace attnlab
