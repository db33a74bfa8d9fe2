// The English -> French noun-phrase lexicon and generator (see phrase_task.hpp).
#include "data/phrase_task.hpp"

#include <algorithm>
#include <string>

#include "core/check.hpp"

namespace attnlab {

namespace {

struct Noun {
  const char *en, *fr;
  bool fem;
};
struct Adj {
  const char *en, *masc, *fem;
};

const Noun kNouns[] = {
    {"area", "zone", true},       {"market", "marché", false}, {"policy", "politique", true},
    {"bank", "banque", true},     {"car", "voiture", true},    {"house", "maison", true},
    {"book", "livre", false},     {"city", "ville", true},     {"country", "pays", false},
    {"system", "système", false}, {"union", "union", true},    {"council", "conseil", false},
    {"agency", "agence", true},   {"court", "cour", true},     {"treaty", "traité", false},
    {"law", "loi", true},         {"river", "rivière", true},  {"garden", "jardin", false},
    {"door", "porte", true},      {"table", "table", true},    {"train", "train", false},
    {"letter", "lettre", true},   {"wall", "mur", false},      {"road", "route", true}};
const Adj kAdjs[] = {{"European", "européen", "européenne"},
                     {"economic", "économique", "économique"},
                     {"red", "rouge", "rouge"},
                     {"green", "vert", "verte"},
                     {"black", "noir", "noire"},
                     {"white", "blanc", "blanche"},
                     {"blue", "bleu", "bleue"},
                     {"central", "central", "centrale"},
                     {"national", "national", "nationale"},
                     {"social", "social", "sociale"},
                     {"public", "public", "publique"},
                     {"French", "français", "française"},
                     {"German", "allemand", "allemande"},
                     {"political", "politique", "politique"},
                     {"modern", "moderne", "moderne"},
                     {"legal", "juridique", "juridique"},
                     {"urban", "urbain", "urbaine"},
                     {"rural", "rural", "rurale"},
                     {"financial", "financier", "financière"},
                     {"monetary", "monétaire", "monétaire"}};
// English writes "an" before a vowel sound: "an urban area", but "a European union" (/j/).
bool takes_an(const char* w) {
  for (const char* v : {"area", "agency", "economic", "urban"})
    if (std::string(w) == v) return true;
  return false;
}

constexpr int kNounCount = int(sizeof(kNouns) / sizeof(kNouns[0]));
constexpr int kAdjCount = int(sizeof(kAdjs) / sizeof(kAdjs[0]));

}  // namespace

PhraseTask::PhraseTask(int n_min, int n_max) : n_min_(n_min), n_max_(n_max) {
  AL_CHECK(n_min >= 2 && n_max >= n_min && n_max <= 200,
           "phrases: source lengths must satisfy 2 <= n_min <= n_max <= 200, got " << n_min << ".."
                                                                                   << n_max);
  for (const char* w : {"the", "a", "and"}) src_.add(w);
  for (const auto& n : kNouns) src_.add(n.en);
  for (const auto& a : kAdjs) src_.add(a.en);
  src_.add("an");  // last, so the ids of the words before it stay those of earlier versions
  for (const char* w : {"le", "la", "un", "une", "et"}) tgt_.add(w);
  for (const auto& n : kNouns) tgt_.add(n.fr);
  for (const auto& a : kAdjs) tgt_.add(a.masc), tgt_.add(a.fem);
  max_src_ = n_max;
  max_tgt_ = n_max;
}

SeqExample PhraseTask::draw_length(Rng& rng, int n) const {
  AL_CHECK(n >= 2, "phrases: a source needs at least 2 tokens, got " << n);
  {
    SeqExample ex;
    std::vector<std::string> en, fr;
    auto emit = [&](std::vector<std::string>& side, const std::string& w) { side.push_back(w); };
    int rem = n;
    while (rem > 0) {
      if (rem < n) {  // connector between phrases
        ex.gold.push_back({int(en.size())});
        emit(en, "and"), emit(fr, "et");
        --rem;
      }
      const int size = rem <= 5 ? rem : 2 + int(rng.below(uint32_t(std::min(5, rem - 3) - 1)));
      const int k = size - 2;  // adjectives
      const Noun& nn = kNouns[rng.below(kNounCount)];
      int adj[3];
      for (int j = 0; j < k; ++j) {
        bool fresh;
        do {
          adj[j] = int(rng.below(kAdjCount));
          fresh = true;
          for (int i = 0; i < j; ++i) fresh = fresh && adj[i] != adj[j];
        } while (!fresh);
      }
      const bool definite = rng.below(2) == 0;
      const int base = int(en.size());
      const char* first = k > 0 ? kAdjs[adj[0]].en : nn.en;
      emit(en, definite ? "the" : takes_an(first) ? "an" : "a");
      for (int j = 0; j < k; ++j) emit(en, kAdjs[adj[j]].en);
      emit(en, nn.en);
      // French: det noun adj_k .. adj_1 (the adjective nearest the noun stays nearest)
      emit(fr, definite ? (nn.fem ? "la" : "le") : (nn.fem ? "une" : "un"));
      ex.gold.push_back({base});
      emit(fr, nn.fr);
      ex.gold.push_back({base + 1 + k});
      for (int j = k - 1; j >= 0; --j) {
        emit(fr, nn.fem ? kAdjs[adj[j]].fem : kAdjs[adj[j]].masc);
        ex.gold.push_back({base + 1 + j});
      }
      rem -= size;
    }
    for (size_t i = 0; i < en.size(); ++i) ex.src_text += (i ? " " : "") + en[i];
    for (size_t i = 0; i < fr.size(); ++i) ex.tgt_text += (i ? " " : "") + fr[i];
    for (const auto& w : en) ex.src.push_back(src_.id(w));
    for (const auto& w : fr) ex.tgt.push_back(tgt_.id(w));
    return ex;
  }
}

SeqExample PhraseTask::sample_length(Rng& rng, Split split, int n) const {
  for (int tries = 0; tries < 100000; ++tries) {
    SeqExample e = draw_length(rng, n);
    if (in_split(e.src, split)) return e;
  }
  throw Error("phrases: no source of length " + std::to_string(n) + " in the requested split");
}

SeqExample PhraseTask::draw_aligned(Rng& rng) const {
  return draw_length(rng, n_min_ + int(rng.below(uint32_t(n_max_ - n_min_ + 1))));
}

}  // namespace attnlab
