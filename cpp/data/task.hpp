// Tasks: seeded generators of (source, target) token sequences with disjoint train and
// held-out splits, and the task registry. Every task shares the special ids pad 0, bos 1,
// eos 2 (models/model.hpp); its own symbols start at 3. A sequence belongs to the held-out
// split when a hash of its source falls in the held-out bucket, so the two splits never share a
// source and the assignment is identical natively and in WebAssembly.
// Point tasks (data/point_task.hpp: convex-hull, tsp, point-sort) have float inputs instead of
// source ids (input_dim() > 0) and targets that name inputs (id kFirstSymbol + j: input j); a
// batch of theirs holds sets of one size n, drawn per batch (sample_batch).
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"
#include "models/model.hpp"

namespace attnlab {

enum class Split { Train, Test };

struct Example {
  Example() = default;
  Example(std::vector<int32_t> s, std::vector<int32_t> t, std::vector<float> points = {})
      : src(std::move(s)), tgt(std::move(t)), x(std::move(points)) {}
  std::vector<int32_t> src;  // no bos/eos
  std::vector<int32_t> tgt;  // no bos/eos
  std::vector<float> x;      // point tasks: the inputs [n, dim] (src empty)
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual int src_vocab() const = 0;
  virtual int tgt_vocab() const = 0;
  virtual int max_src_len() const = 0;
  virtual int max_tgt_len() const = 0;
  // One example of the split, drawn from rng.
  virtual Example sample(Rng& rng, Split split) const;
  // `count` examples of the split as one batch; data-parallel ranks keep the rows
  // [first, first + rows) of it (rows < 0: all). Default: sample_many, then make_batch of the
  // kept rows; point tasks first draw the batch's n in [n_min, n_max].
  virtual Batch sample_batch(Rng& rng, Split split, int count, int first = 0, int rows = -1) const;
  // Point tasks: float features per input (0: token tasks), the shortest set, `count` sets of
  // exactly n inputs as a batch, and the exact answer (input positions) for inputs x [n, dim].
  // Token tasks throw from the last two.
  virtual int input_dim() const { return 0; }
  virtual int min_src_len() const { return 1; }
  virtual Batch sample_sets(Rng& rng, Split split, int count, int n) const;
  virtual std::vector<int> solve(const std::vector<float>& x, int n) const;
  // The model kind a config that names this task but no model gets, and the model-config
  // fields the task fixes (point tasks: dim, permutation, min_outputs; token tasks: none here,
  // their vocabularies are set by the caller).
  virtual std::string default_model() const { return "transformer"; }
  virtual nlohmann::json model_fields() const { return nlohmann::json::object(); }
  // Readable token names (for the CLI and the page); ids < 3 are <pad>, <s>, </s>.
  virtual std::string src_token(int id) const;
  virtual std::string tgt_token(int id) const;

 protected:
  // One example from the whole distribution (sample() sorts it into a split).
  virtual Example draw(Rng& rng) const = 0;
  int test_percent_ = 10;  // share of sources in the held-out split
};

// 64-bit FNV-1a over the source ids: the split key.
uint64_t source_hash(const std::vector<int32_t>& src);

// The registered task names and the factory. `options` may set task-specific keys
// (e.g. {"min_len": 1, "max_len": 10, "symbols": 10}); unknown names throw attnlab::Error.
std::unique_ptr<Task> make_task(const std::string& name, const nlohmann::json& options = {});
std::vector<std::string> task_names();
// The one rule for the name "sort", which two tasks answer to: with the pointer model it is
// the point task "point-sort" (n reals -> their indices in increasing order), with any other
// model or none the token task "sort". Every other name maps to itself. Front ends pass each
// user-given task name through it (the CLI, sessions, checkpoints' "task").
// (The kind's registry row decides: a kind that takes points.) point_task_name is the rule for a
// model known to read point sets.
std::string task_for_model(const std::string& task, const std::string& model_kind);
std::string point_task_name(const std::string& task);

// Pads examples into a batch: S = longest source, T = longest target + 1;
// tgt_in = <s> y, tgt_out = y </s>. dim > 0: point examples (x [n, dim], every row the same n,
// src empty), S = n.
Batch make_batch(const std::vector<Example>& ex, int dim = 0);
// Word (token) dropout for low-resource training (Sennrich & Zhang 2019): each source token and
// each decoder input token after <s> is replaced by `unk` with probability p_src / p_tgt;
// padding, <s> and the targets the loss reads (tgt_out) are left alone. Draws nothing from rng
// when both are 0, so a run without it is the run it always was.
void drop_words(Batch& b, float p_src, float p_tgt, int32_t unk, Rng& rng);
// The generator of step `step`'s word dropout on data-parallel rank `rank`: a stream of its own
// keyed by (seed, step, rank), so a resumed run draws what the uninterrupted one drew with no
// state to save.
Rng word_dropout_rng(uint64_t seed, int step, int rank);
// `n` examples of a split drawn from rng.
std::vector<Example> sample_many(const Task& task, Rng& rng, Split split, int n);

}  // namespace attnlab
