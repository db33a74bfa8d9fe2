// The "text" task: a language-modelling corpus for the decoder-only LM. Each example is one
// sentence as the target with an empty source; every tenth sentence, by a hash of its ids, is
// held out. Options: {"file": path, "vocab": 2000, "max_len": 40, "min_len": 3,
// "tokenizer": "word" | "bpe"}.
//  - "word" (the default): the text is lower-cased and split into words (letters/digits with
//    inner apostrophes) and punctuation marks; the `vocab` most frequent words get ids from 4
//    on, the rest map to <unk> (id 3). Sentences end at . ! ?
//  - "bpe": the text keeps its case and punctuation; each line is split into sentences
//    (text_sentences) and a byte-pair-encoding vocabulary of `vocab` tokens is learned from the
//    sentences (Bpe, "▁"-prefixed words, no <unk>: unseen characters become byte tokens).
//    max_len and min_len count subword tokens. Checkpoints carry the vocabulary as JSON
//    (bpe_json), so decoding joins the pieces back into the text.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/bpe.hpp"
#include "data/seq_task.hpp"
#include "data/task.hpp"

namespace attnlab {

// Lower-cased words and punctuation marks of `text`, in order.
std::vector<std::string> text_words(const std::string& text);
// The sentences of `text` for the "bpe" tokenizer: each line split after . ! ? (and any closing
// quotes or brackets) where whitespace follows; whitespace runs become one space.
std::vector<std::string> text_sentences(const std::string& text);
// Ids of the words under `vocab` (token i has id i; unknown words get <unk> = 3).
std::vector<int32_t> text_ids(const std::vector<std::string>& words,
                              const std::vector<std::string>& vocab);

class TextTask : public Task {
 public:
  TextTask(const std::string& text, int vocab_size, int max_len, int min_len, bool bpe = false);
  std::string name() const override { return "text"; }
  int src_vocab() const override { return bpe_ ? bpe_->size() : vocab_.size(); }
  int tgt_vocab() const override { return src_vocab(); }
  int max_src_len() const override { return 0; }
  int max_tgt_len() const override { return max_len_; }
  Example sample(Rng& rng, Split split) const override;
  std::string src_token(int id) const override { return bpe_ ? bpe_->token(id) : vocab_.token(id); }
  // Token names by id (what checkpoints store as "vocab").
  std::vector<std::string> tokens() const;
  // The "bpe" tokenizer's vocabulary (nullptr for "word").
  const Bpe* bpe() const { return bpe_ ? &*bpe_ : nullptr; }
  size_t sentences(Split split) const { return (split == Split::Train ? train_ : test_).size(); }

 protected:
  Example draw(Rng& rng) const override;

 private:
  Vocab vocab_;
  std::optional<Bpe> bpe_;
  int max_len_;
  std::vector<std::vector<int32_t>> train_, test_;  // sentences as ids
};

}  // namespace attnlab
