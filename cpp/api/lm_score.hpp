// Sentence scoring with a language model (the "lm" kind trained on the "text" task):
// log p(w_1..w_n </s>) = sum_t log softmax(z_t)[w_t], where z_t are the model's logits after
// <s> w_1..w_{t-1}. The vocabulary comes from the checkpoint's training metadata ("vocab", and
// "bpe" for a subword model, whose tokens are then BPE pieces), so a front end needs only the
// checkpoint bytes and the text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/bpe.hpp"
#include "models/model.hpp"

namespace attnlab::api {

struct SentenceScore {
  std::vector<std::string> tokens;  // [n+1] the words as the model sees them (<unk>), then </s>
  std::vector<int32_t> ids;         // [n+1]
  std::vector<float> logprobs;      // [n+1] natural-log probability of each token
  double total = 0;                 // sum of logprobs
};

// Scores `text` with model m (kind "lm") over `vocab` (token names by id), split into words
// (text_words) or, given `bpe`, into its subword pieces.
SentenceScore score_sentence(Model& m, const std::vector<std::string>& vocab,
                             const std::string& text, const Bpe* bpe = nullptr);

// Loads an LM checkpoint (.safetensors bytes with a "vocab" in its training metadata) and
// scores each sentence.
std::vector<SentenceScore> score_sentences(const std::vector<uint8_t>& checkpoint,
                                           const std::vector<std::string>& sentences);

}  // namespace attnlab::api
