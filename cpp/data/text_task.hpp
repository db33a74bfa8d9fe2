// The "text" task: a word-level language-modelling corpus for the decoder-only LM. The text is
// lower-cased and split into words (letters/digits with inner apostrophes) and punctuation
// marks; the `vocab` most frequent words get ids from 4 on, the rest map to <unk> (id 3).
// Each example is one sentence (ending at . ! ?) as the target with an empty source; every
// tenth sentence, by a hash of its ids, is held out. Options: {"file": path, "vocab": 2000,
// "max_len": 40, "min_len": 3}.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/seq_task.hpp"
#include "data/task.hpp"

namespace attnlab {

// Lower-cased words and punctuation marks of `text`, in order.
std::vector<std::string> text_words(const std::string& text);
// Ids of the words under `vocab` (token i has id i; unknown words get <unk> = 3).
std::vector<int32_t> text_ids(const std::vector<std::string>& words,
                              const std::vector<std::string>& vocab);

class TextTask : public Task {
 public:
  TextTask(const std::string& text, int vocab_size, int max_len, int min_len);
  std::string name() const override { return "text"; }
  int src_vocab() const override { return vocab_.size(); }
  int tgt_vocab() const override { return vocab_.size(); }
  int max_src_len() const override { return 0; }
  int max_tgt_len() const override { return max_len_; }
  Example sample(Rng& rng, Split split) const override;
  std::string src_token(int id) const override { return vocab_.token(id); }
  // Token names by id (what checkpoints store as "vocab").
  std::vector<std::string> tokens() const;
  size_t sentences(Split split) const { return (split == Split::Train ? train_ : test_).size(); }

 protected:
  Example draw(Rng& rng) const override;

 private:
  Vocab vocab_;
  int max_len_;
  std::vector<std::vector<int32_t>> train_, test_;  // sentences as ids
};

}  // namespace attnlab
