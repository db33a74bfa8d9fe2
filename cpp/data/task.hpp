// Tasks: seeded generators of (source, target) token sequences with disjoint train and
// held-out splits, and the task registry. Every task shares the special ids pad 0, bos 1,
// eos 2; its own symbols start at 3. A sequence belongs to the held-out split when a hash of
// its source falls in the held-out bucket, so the two splits never share a source and the
// assignment is identical natively and in WebAssembly.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "models/model.hpp"

namespace attnlab {

constexpr int kPad = 0, kBos = 1, kEos = 2, kFirstSymbol = 3;

enum class Split { Train, Test };

struct Example {
  std::vector<int32_t> src;  // no bos/eos
  std::vector<int32_t> tgt;  // no bos/eos
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

// Pads examples into a batch: S = longest source, T = longest target + 1;
// tgt_in = <s> y, tgt_out = y </s>.
Batch make_batch(const std::vector<Example>& ex);
// `n` examples of a split drawn from rng.
std::vector<Example> sample_many(const Task& task, Rng& rng, Split split, int n);

}  // namespace attnlab
