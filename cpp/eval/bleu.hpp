// Corpus BLEU (Papineni et al. 2002) computed the way sacreBLEU 2.x does by default: the "13a"
// tokenizer (mteval-v13a), n = 1..4, clipped n-gram matches summed over the corpus, "exp"
// smoothing for orders with no match, brevity penalty against the closest reference length.
// Scores are on sacreBLEU's 0-100 scale, so `attn eval` numbers compare with published ones.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace attnlab {

// mteval-v13a tokenization of one line (case kept), tokens joined by single spaces.
std::string tokenize_13a(const std::string& line);

struct BleuScore {
  double score = 0;                    // 0..100
  std::array<double, 4> precisions{};  // modified n-gram precisions, 0..100 (smoothed)
  double brevity_penalty = 0;
  long hyp_len = 0, ref_len = 0;  // tokens
  // "BLEU = 27.30 58.1/33.2/21.0/13.6 (BP = 0.981 ratio = 0.981 hyp_len = 950 ref_len = 968)"
  std::string to_string() const;
};

// hyps[i] is scored against refs[k][i] for every reference set k (one set is usual).
BleuScore corpus_bleu(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs);

}  // namespace attnlab
