// A model session for front ends (the Embind module, tests): one model, optionally the task
// it trains on, and its training state. Built from a JSON config or a .safetensors checkpoint
// (the same bytes the CLI reads and writes). Every failure is an attnlab::Error.
// Config: {"model": {"model": "transformer", "d_model": 32, ...} | "transformer",
//          "task": "reverse", "task_options": {...}, "seed": 1,
//          "train": {"batch", "schedule", "lr", "lr_factor", "warmup", "clip", "label_smoothing",
//                    "optimizer" ("adam" | "sgd"), "momentum", "threads", "thread_split"}}
// Training on the task follows `attn train` exactly (same seed -> same losses and weights).
// Threads (train.threads, default the engine's kernel thread count: in wasm-mt the page's pool;
// train.thread_split "kernels" (default), "ranks", "both" or "auto"): as `attn train --threads N
// --thread-split S`, the steps of train() split each kernel call, run on thread ranks
// (parallel/thread_ranks.hpp: replicas on row shares of the batch) or on ranks that each split
// their kernel calls (both); plan_threads decides for "auto"; info()["threads"] is the plan.
// Split kernels give the same bits on any thread count; ranks do not (the gradient sums round in
// another order and ranks past 0 draw their own dropout masks), so the default keeps a session's
// numbers independent of the machine's cores (a page link reproduces its run on any machine), and a
// checkpoint saved with its optimizer records the rank count ("thread_ranks"): a session loaded
// from it resumes on as many ranks, bit for bit, where it has that many threads (else it plans anew
// and info's plan says the resume is not exact). The WebGPU backend, the recurrent kinds and
// trainBatch train on one rank. Every model kind, the pointer network included: a config that names
// a point task (convex-hull, tsp; "sort" with model "pointer", data/task.hpp's task_for_model) and
// no model gets the pointer network, whose fields the task fixes (dim, permutation, min_outputs)
// and whose training defaults are `attn train --model pointer`'s (batch 128, constant lr 1e-3, clip
// 2). Its task_options are {"n_min", "n_max"}; a point set goes in through decode_points and
// point_examples; checkpoints store the n range in task_options (old ones at the top level of the
// state, which load() still reads).
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/bpe.hpp"
#include "data/task.hpp"
#include "eval/decode.hpp"
#include "models/memory.hpp"
#include "models/model.hpp"
#include "train/trainer.hpp"

namespace attnlab {
class ThreadRankTrainer;
}

namespace attnlab::api {

using Rows = std::vector<std::vector<int32_t>>;

struct TrainChunk {
  std::vector<float> losses;  // one per step (NaN on a deferred backend: see records)
  long tokens = 0;            // non-pad target tokens
  int step = 0;               // optimizer steps taken after this call
  float lr = 0, grad_norm = 0;
  // A deferred backend (WebGPU): the [loss, gradient norm] pairs of the steps not yet settled
  // are `pending` pairs of floats at backend address `records`; read them, then settle().
  uintptr_t records = 0;
  int pending = 0;
};

struct Inspection {
  int B = 0, T = 0, V = 0;
  std::vector<float> logits;          // [B,T,V]
  std::vector<AttentionMap> maps;     // per attention sublayer, weights [B,H,T,S]
  std::vector<AttentionParts> parts;  // with InspectOptions::parts: Q, K, V per sublayer
  std::vector<ForwardTrace> traces;   // with InspectOptions::trace: one per row
  Rows tgt;                           // the target rows used (decoded when none were given)
};

// How one inspection pass runs: causal = false lifts a Transformer decoder's causal mask;
// parts also returns every multi-head sublayer's Q, K and V; mute zeroes the named heads'
// outputs (for this pass, and for the greedy decoding that makes tgt when none is given);
// trace also returns every row's ForwardTrace (models/model.hpp): each activation of the pass
// at every position of the row, from the embeddings to the logits (decoder-only and
// encoder-only Transformers; the logits in it are this pass's, bit for bit).
struct InspectOptions {
  bool causal = true;
  bool parts = false;
  bool trace = false;
  HeadMask mute;
};

struct Examples {
  Rows src, tgt;
  std::vector<std::string> src_text, tgt_text;
};

// One point set decoded: the chosen inputs (0-based, end excluded) and each output step's
// distribution over the n inputs and the end symbol, probs [steps, n + 1].
struct PointDecode {
  int n = 0;
  std::vector<int> order;
  std::vector<float> probs;
};

// Point-task examples: x [count, n, dim] and each set's exact answer (0-based positions).
struct PointExamples {
  int n = 0, dim = 0;
  std::vector<float> x;
  std::vector<std::vector<int>> target;
};

class Session {
 public:
  static std::unique_ptr<Session> create(const nlohmann::json& config);
  // `overrides` may set "task", "task_options", "train" (e.g. for a checkpoint without them).
  static std::unique_ptr<Session> load(const std::vector<uint8_t>& bytes,
                                       const nlohmann::json& overrides);
  // The estimate for a config before anything is built (throws for a bad config).
  static SizeEstimate estimate(const nlohmann::json& config);
  ~Session();  // gives the readback-free records back to the backend

  nlohmann::json info() const;
  TrainChunk train(int steps);                               // on the task
  TrainChunk train_batch(const Rows& src, const Rows& tgt);  // on given ids (no bos/eos)
  // Held-out loss and accuracies; for RNNsearch/RNNencdec on a SeqTask also per-length
  // accuracy and (RNNsearch) the alignment error rate of the same draw.
  EvalResult evaluate(int samples, uint64_t seed);
  Rows decode(const Rows& src, int beam, int max_len, float alpha);
  // decode() of one source that also records the beam search step by step (eval/decode.hpp's
  // BeamTrace; none for beam 1, which decodes greedily); the tokens are decode()'s.
  std::vector<int32_t> decode_traced(const std::vector<int32_t>& src, int beam, int max_len,
                                     float alpha, BeamTrace& trace);
  // One teacher-forced pass (tgt empty: the greedy decoding). causal = false lifts the causal
  // mask of a Transformer's target-side self-attention for this pass only, so position i also
  // sees later targets (the leak the mask prevents); the model is causal again afterwards.
  Inspection inspect(const Rows& src, const Rows& tgt, const InspectOptions& options);
  Inspection inspect(const Rows& src, const Rows& tgt, bool causal = true) {
    InspectOptions o;
    o.causal = causal;
    return inspect(src, tgt, o);
  }
  Examples examples(int n, Split split, uint64_t seed) const;
  // Models that read point sets: the decoding of one set x [n, dim] with the pointer
  // distribution of every step, and `count` sets of the point task (n <= 0: its n_min).
  PointDecode decode_points(const std::vector<float>& x, int n);
  PointExamples point_examples(int count, int n, Split split, uint64_t seed) const;
  // Text models (checkpoints of `attn train --task parallel`, which carry their BPE
  // vocabulary): text <-> token ids, and the vocabulary piece of each id (for labels).
  bool has_text_vocabulary() const { return bpe_ != nullptr; }
  std::vector<int32_t> encode_text(const std::string& text) const;
  std::string decode_text(const std::vector<int32_t>& ids) const;
  std::vector<std::string> pieces(const std::vector<int32_t>& ids) const;
  // The checkpoint: weights, task and training config ("train", which load() takes when its
  // overrides give none). With optimizer = true also Adam's moments and step count and the
  // generators (train/train_state.hpp) once the session has trained, so that a session
  // load()ed from it continues the training bit for bit, as `attn train --resume` does; files
  // about three times the size.
  std::vector<uint8_t> save(bool optimizer = false);
  Model& model() { return *model_; }

  // The backend the model trains on: "cpu" (also the WebAssembly engine's SIMD kernels) or
  // "webgpu" (config "backend": "webgpu"; the module needs a GpuTable attached). A deferred
  // backend never reads its memory inside a step: train() and trainBatch() return the address of
  // the steps' [loss, norm] records, which the caller reads asynchronously and passes to
  // settle(); until then further steps append to them (up to kMaxPending). Reads of the model
  // (evaluate, decode, inspect, save) run on a host copy of the weights: before one, fetch
  // device_ranges(optimizer) (what the call will read) so the table can serve it.
  const std::string& backend() const { return backend_; }
  // Checks the pending records (2 floats per step) and clears them. The first step whose loss
  // or norm was not finite changed nothing (nor did the steps after it): the step count goes
  // back to the one before it and the error is check_step_finite's.
  void settle(const std::vector<float>& records);
  // [[address, bytes]] of the backend memory that reading the model will download (the weights;
  // with optimizer also Adam's moments); empty on the CPU backend.
  nlohmann::json device_ranges(bool optimizer) const;
  static constexpr int kMaxPending = 4096;

 private:
  Session() = default;
  void set_task(const std::string& name, const nlohmann::json& options,
                const std::string& model_kind);
  void set_train_options(const nlohmann::json& train);
  const Task& need_task(const char* what) const;
  void check_rows(const Rows& rows, int vocab, const char* what) const;
  int decode_limit(size_t src_len, int max_len) const;  // decode_steps, at least 1 or throws
  int decode_steps(size_t src_len, int max_len) const;  // how many steps decode may take
  // Checks a decode call (rows, beam, lengths, its estimated work) -> decode_limit.
  int check_decode(const Rows& src, int beam, int max_len) const;

  std::unique_ptr<Model> model_;
  const Bpe& need_bpe(const char* what) const;
  // The model that answers reads: model_ itself, or on a deferred backend its host copy, brought
  // up to date first (from the prefetched weights).
  Model& reader();
  void begin_steps(int steps);
  // The thread plan train() runs on (fixed once training started), as info() reports it.
  nlohmann::json thread_plan() const;

  std::string backend_ = "cpu";
  DeviceSteps device_;
  std::unique_ptr<Model> host_;  // deferred backend: the weights on the host, for reads
  int host_step_ = -1;           // steps_ when host_ was last brought up to date

  std::unique_ptr<Task> task_;
  std::unique_ptr<Bpe> bpe_;     // text models: the shared source/target vocabulary
  nlohmann::json corpus_state_;  // text models: the training state kept for save()
  std::string task_name_;
  nlohmann::json task_options_ = nlohmann::json::object();
  nlohmann::json train_config_ = nlohmann::json::object();
  TrainOptions opts_;
  uint64_t seed_ = 1;
  int steps_ = 0;  // optimizer steps taken (checkpoint "step")
  std::unique_ptr<Trainer> trainer_;
  // train() on more than one thread rank (the CPU backend only), instead of trainer_
  std::unique_ptr<ThreadRankTrainer> rank_trainer_;
  int threads_ = 0;                       // train.threads (0: the kernel thread count)
  std::string thread_split_ = "kernels";  // train.thread_split
  nlohmann::json plan_;                   // the plan training started with (null before)
  std::unique_ptr<Adam> batch_adam_;
  Rng batch_dropout_{0};
  // trainBatch's unsettled readback-free steps: the dropout generator before each
  std::vector<Rng::State> batch_marks_;
  // Optimizer state load() found, restored when training starts (train or train_batch).
  std::unique_ptr<SafeTensors> resume_;
  nlohmann::json resume_state_;
};

}  // namespace attnlab::api
