// Phrase translation with crossing word order: English noun phrases "det adj* noun" joined by
// "and" -> French "det noun adj*" with the adjectives reversed and agreeing with the noun's
// gender ("the European economic area" -> "la zone économique européenne"). Every French word
// is aligned with the English word it translates, so the gold alignment crosses inside each
// phrase. Source lengths are drawn in [n_min, n_max] tokens.
#pragma once
#include "data/seq_task.hpp"

namespace attnlab {

class PhraseTask : public SeqTask {
 public:
  PhraseTask(int n_min, int n_max);
  std::string name() const override { return "phrases"; }
  // One example of the split with source length exactly n (2 <= n).
  SeqExample sample_length(Rng& rng, Split split, int n) const;
  int n_min() const { return n_min_; }
  int n_max() const { return n_max_; }

 protected:
  SeqExample draw_aligned(Rng& rng) const override;
  SeqExample draw_length(Rng& rng, int n) const;

 private:
  int n_min_, n_max_;
};

}  // namespace attnlab
