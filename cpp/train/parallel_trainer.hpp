// Training on a real parallel corpus: token-bucketed batches from a ParallelCorpus, Adam at the
// scheduled rate, and checkpoints that resume exactly. A checkpoint holds the model, the Adam
// moments ("optimizer.m", "optimizer.v"), the BPE vocabulary and the batcher's position, and is
// written to a temp file then renamed, so a run killed at any moment leaves the last complete
// checkpoint. Dropout masks come from an Rng seeded by (seed, step), so no generator state needs
// saving. Data-parallel (o.dp.size > 1): every rank's batcher draws the same global batch of at
// most max_tokens padded tokens and each rank trains on its contiguous share of the batch's rows
// (rank_rows), so the ranks together take the one-process step on the global batch; the
// batcher's saved position is the global stream's, so a resume may use another world size.
// Also: corpus BLEU of a model on a held-out TSV, and checkpoint averaging.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/bpe.hpp"
#include "data/parallel_corpus.hpp"
#include "eval/bleu.hpp"
#include "io/safetensors.hpp"
#include "models/model.hpp"
#include "train/optim.hpp"
#include "train/trainer.hpp"

namespace attnlab {

struct ParallelTrainOptions {
  long max_tokens = 4096;  // padded tokens per global batch and side (all ranks together)
  Schedule schedule;
  float clip = 1.f;
  float label_smoothing = 0.1f;
  // word dropout (data/task.hpp drop_words) with Bpe::kUnk, on the source and decoder inputs
  float word_dropout = 0.f;
  // the share of dictionary items (sources tagged "<lex>") in every batch (TokenBatcher);
  // negative: their natural share, batched like the sentences
  double lexicon_share = -1;
  uint64_t seed = 1;
  DataParallel dp;
};

class ParallelTrainer {
 public:
  ParallelTrainer(Model& m, const ParallelCorpus& corpus, const Bpe& bpe, ParallelTrainOptions o);
  StepInfo step();
  int next_step() const { return step_; }
  int epoch() const { return batcher_.epoch(); }
  const Adam& adam() const { return adam_; }
  // A replica's optimizer (DataParallel::shard_update, rank > 0) steps with `owner`'s moments.
  void view_moments_of(const Adam& owner) { adam_.view_moments_of(owner); }

  // Writes model + optimizer + training state to `path` atomically; `extra` joins the state.
  void save(const std::string& path, const nlohmann::json& extra = nlohmann::json::object()) const;
  // Restores optimizer, step and batch position from a checkpoint written by save() (the model
  // parameters are loaded by the caller, e.g. through load_checkpoint).
  void restore(const SafeTensors& st);

 private:
  Model& m_;
  const ParallelCorpus& corpus_;
  const Bpe& bpe_;
  ParallelTrainOptions o_;
  TokenBatcher batcher_;
  Adam adam_;
  int step_ = 1;
};

// The training state saved by ParallelTrainer::save (the "attnlab_train" metadata).
nlohmann::json train_state_of(const SafeTensors& st);

// The longest translation decoded for a source of n pieces: 2n + 10, within the model's
// max_len (as fairseq's max_len_a = 2, max_len_b = 10); attn translate, attn eval --test and the
// page's translate() all stop there.
int translation_limit(size_t src_len, int max_len);

// BLEU of the model's translations (beam search with length penalty alpha when beam > 1,
// greedy otherwise) of the first `limit` pairs of `test` (all when limit <= 0), each at most
// translation_limit(source length, max_len) pieces. With `hyps`, also the detokenised
// translations, one per pair in corpus order.
BleuScore evaluate_bleu(Model& m, const ParallelCorpus& test, const Bpe& bpe, int beam, float alpha,
                        int limit, int max_len, std::vector<std::string>* hyps = nullptr);

// Element-wise mean of the model tensors of several checkpoints of one model (optimizer
// tensors dropped); metadata from the last one.
SafeTensors average_checkpoints(const std::vector<std::string>& paths);

// Rewrites the checkpoint at `path` without its optimizer tensors ("optimizer.*"), atomically: the
// weights and the training state stay (eval, average and export read it as before), a resume from
// it is refused by name. Returns false when it held none.
bool strip_optimizer(const std::string& path);

}  // namespace attnlab
