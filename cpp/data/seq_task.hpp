// Sequence-to-sequence tasks with known alignments (dates, phrase translation), on the shared
// Task interface (data/task.hpp: ids pad 0, bos 1, eos 2, same held-out rule by source hash).
// Each example also carries the gold alignment of every target token to source positions,
// for the alignment error rate of attention models.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/task.hpp"

namespace attnlab {

// Token ids: 0 <pad>, 1 <s>, 2 </s>, 3 <unk>, then the task's tokens in a fixed order.
class Vocab {
 public:
  static constexpr int kUnk = 3;
  Vocab();
  int add(const std::string& tok);       // existing id if present
  int id(const std::string& tok) const;  // kUnk when absent
  const std::string& token(int id) const;
  int size() const { return int(tokens_.size()); }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

struct SeqExample {
  std::string src_text, tgt_text;
  std::vector<int32_t> src, tgt;  // token ids, no <s>/</s>
  // gold[i]: source positions aligned with target token i (empty: no gold link, e.g. '-').
  std::vector<std::vector<int>> gold;
  // possible[i]: non-empty where the task leaves target i's alignment ambiguous (several
  // source tokens determine it): then all of these are possible links and target i has no
  // sure one (Och & Ney 2003). Elsewhere, or when possible is shorter: gold[i] is sure.
  std::vector<std::vector<int>> possible;
};

class SeqTask : public Task {
 public:
  int src_vocab() const override { return src_.size(); }
  int tgt_vocab() const override { return tgt_.size(); }
  int max_src_len() const override { return max_src_; }
  int max_tgt_len() const override { return max_tgt_; }
  std::string src_token(int id) const override { return src_.token(id); }
  std::string tgt_token(int id) const override { return tgt_.token(id); }
  // One example of the split with its gold alignment (the same split rule as sample()).
  SeqExample sample_aligned(Rng& rng, Split split) const;
  // Turns user text into source ids (the task's own tokenizer); unknown words -> <unk>.
  std::vector<int32_t> encode(const std::string& text) const;
  const Vocab& src_vocab_table() const { return src_; }
  const Vocab& tgt_vocab_table() const { return tgt_; }

 protected:
  virtual SeqExample draw_aligned(Rng& rng) const = 0;
  Example draw(Rng& rng) const override;
  bool in_split(const std::vector<int32_t>& src, Split split) const;
  Vocab src_, tgt_;
  int max_src_ = 0, max_tgt_ = 0;
};

// Splits text into tokens: spaces separate, each digit and each ASCII punctuation mark is a
// token, runs of letters (ASCII letters or any non-ASCII UTF-8 byte) form one token.
std::vector<std::string> split_tokens(const std::string& text);

// "dates" or "phrases" (options: n_min, n_max source lengths of phrases); throws otherwise.
std::unique_ptr<SeqTask> make_seq_task(const std::string& name, const nlohmann::json& options = {});

}  // namespace attnlab
