// Parallel corpora for `attn train --task parallel`: a TSV file (source<TAB>target per line)
// indexed once (byte offset and BPE lengths per pair) and read back from disk pair by pair, so
// memory grows with the number of pairs, not the text; and token-bucketed batching as in the
// Transformer paper (batches of similar-length pairs, about `max_tokens` padded tokens per side),
// with a seeded shuffle per epoch whose position can be saved and restored exactly. Dictionary
// items (sources tagged "<lex>") may be mixed into every batch at a set share instead of their
// natural one (TokenBatcher's lexicon share).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"
#include "data/bpe.hpp"

namespace attnlab {

class ParallelCorpus {
 public:
  // Pairs with more than max_len BPE tokens on either side, or an empty side, are left out
  // (counted in skipped()). A line without a tab throws attnlab::Error naming the line.
  ParallelCorpus(const std::string& path, const Bpe& bpe, int max_len);

  size_t size() const { return offset_.size(); }
  size_t skipped() const { return skipped_; }
  int src_len(size_t i) const { return src_len_[i]; }
  int tgt_len(size_t i) const { return tgt_len_[i]; }
  // Whether the i-th kept pair is a dictionary item: its source's first word is kLexiconTag.
  bool lexicon(size_t i) const { return lexicon_[i] != 0; }
  const std::vector<uint8_t>& lexicon_mask() const { return lexicon_; }
  size_t lexicon_items() const;
  static constexpr const char* kLexiconTag = "<lex>";
  static bool is_lexicon_source(const std::string& src);
  // The i-th kept pair, read from disk: its text, or its BPE ids (no BOS/EOS).
  std::pair<std::string, std::string> text(size_t i) const;
  std::pair<std::vector<int32_t>, std::vector<int32_t>> ids(size_t i) const;

  // Both sides of every line of a TSV file, for training the shared vocabulary.
  static std::vector<std::string> read_sentences(const std::string& path);

 private:
  std::string path_;
  const Bpe& bpe_;
  std::vector<uint64_t> offset_;  // byte offset of each kept line
  std::vector<int> src_len_, tgt_len_;
  std::vector<uint8_t> lexicon_;
  size_t skipped_ = 0;
};

// Batches of example indices. Each epoch: a seeded permutation, sorted by length inside windows
// of `window` examples, cut greedily so that (rows) * (longest cost in the batch) stays within
// max_tokens (a single longer example forms its own batch), then the batch order is shuffled.
// `cost[i]` is the padded width example i needs, e.g. max(src_len, tgt_len + 1).
// With a lexicon share p in [0, 1) (and `lexicon` marking the dictionary items), an epoch is one
// pass over the other examples (the sentences), batched as above, and every batch takes
// lexicon items from a stream of its own (seeded permutations of the items, one after the other)
// in the number that keeps their share of the rows at p: n sentences take k = floor(carry +
// n p / (1 - p)) items, the remainder carried to the next batch, so that the share over any run
// of batches is p within one item; the items are interleaved with the sentences and count in the
// batch's budget. A negative share (the default) batches every example alike, as before.
class TokenBatcher {
 public:
  TokenBatcher(std::vector<int> cost, long max_tokens, uint64_t seed, size_t window = 8192,
               std::vector<uint8_t> lexicon = {}, double lexicon_share = -1);

  std::vector<size_t> next();  // the next batch; moves to the next epoch after the last one
  int epoch() const { return epoch_; }
  size_t batches_in_epoch() const { return batches_.size(); }

  // Where the stream stands (seed, epoch, position): enough to continue exactly after a resume.
  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  void plan_epoch();
  void plan_mixed_epoch(std::vector<size_t> order, Rng& rng);
  size_t lexicon_item(size_t k);  // the k-th item of the lexicon stream from the epoch's start

  std::vector<int> cost_;
  std::vector<uint8_t> lexicon_;
  double share_ = -1;
  // the lexicon stream at the start of this epoch (permutation, position) and of the next
  long lex_epoch_ = 0, lex_pos_ = 0, next_lex_epoch_ = 0, next_lex_pos_ = 0;
  std::vector<size_t> lex_items_, lex_perm_;
  long lex_perm_epoch_ = -1;
  long max_tokens_;
  uint64_t seed_;
  size_t window_;
  int epoch_ = 0;
  size_t pos_ = 0;
  std::vector<std::vector<size_t>> batches_;
};

}  // namespace attnlab
