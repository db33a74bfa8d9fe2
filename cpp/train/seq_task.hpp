// Sequence-to-sequence tasks with known alignments (dates, phrase translation): token
// vocabularies, examples carrying the gold alignment of every target token, and held-out
// splits that never share a source with training (chosen by a hash of the underlying item).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"

namespace attnlab {

enum class Split { Train = 0, Test = 1 };

// Token ids: 0 <pad>, 1 <bos>, 2 <eos>, 3 <unk>, then the task's tokens in a fixed order.
class Vocab {
 public:
  static constexpr int kPad = 0, kBos = 1, kEos = 2, kUnk = 3;
  Vocab();
  int add(const std::string& tok);  // existing id if present
  int id(const std::string& tok) const;  // kUnk when absent
  const std::string& token(int id) const;
  int size() const { return int(tokens_.size()); }
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

struct SeqExample {
  std::string src_text, tgt_text;
  std::vector<int> src, tgt;  // token ids, no <bos>/<eos>
  // gold[i]: source positions aligned with target token i (empty: no gold link, e.g. '-').
  std::vector<std::vector<int>> gold;
};

class SeqTask {
 public:
  virtual ~SeqTask() = default;
  virtual std::string name() const = 0;
  virtual SeqExample sample(Rng& rng, Split split) const = 0;
  // Turns user text into source ids (the task's own tokenizer); unknown words -> <unk>.
  virtual std::vector<int> encode(const std::string& text) const = 0;
  const Vocab& src_vocab() const { return src_; }
  const Vocab& tgt_vocab() const { return tgt_; }
  int max_src_len() const { return max_src_; }
  int max_tgt_len() const { return max_tgt_; }

 protected:
  Vocab src_, tgt_;
  int max_src_ = 0, max_tgt_ = 0;
};

// FNV-1a of a string: the split key of tasks whose items are strings.
uint64_t fnv1a(const std::string& s);
// Held-out membership: 1 item in 8 goes to the test split.
inline bool in_test_split(uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 61 == 0; }

// Splits text into tokens: spaces separate, each digit and each ASCII punctuation mark is a
// token, runs of letters (ASCII letters or any non-ASCII UTF-8 byte) form one token.
std::vector<std::string> split_tokens(const std::string& text);

// Task by name: "dates" or "phrases" (phrases: source lengths n_min..n_max tokens).
std::unique_ptr<SeqTask> make_seq_task(const std::string& name, int n_min = 0, int n_max = 0);

}  // namespace attnlab
