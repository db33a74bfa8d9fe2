// Vocabulary, tokenizer and split helpers shared by the sequence tasks.
#include "train/seq_task.hpp"

#include "core/check.hpp"
#include "train/date_task.hpp"
#include "train/phrase_task.hpp"

namespace attnlab {

Vocab::Vocab() {
  for (const char* s : {"<pad>", "<bos>", "<eos>", "<unk>"}) add(s);
}

int Vocab::add(const std::string& tok) {
  auto it = ids_.find(tok);
  if (it != ids_.end()) return it->second;
  const int id = int(tokens_.size());
  tokens_.push_back(tok);
  ids_.emplace(tok, id);
  return id;
}

int Vocab::id(const std::string& tok) const {
  auto it = ids_.find(tok);
  return it == ids_.end() ? kUnk : it->second;
}

const std::string& Vocab::token(int id) const {
  AL_CHECK(id >= 0 && id < size(), "token id " << id << " outside the vocabulary of " << size());
  return tokens_[size_t(id)];
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<std::string> split_tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) out.push_back(word), word.clear();
  };
  for (unsigned char c : text) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
    if (letter) {
      word.push_back(char(c));
      continue;
    }
    flush();
    if (c == ' ' || c == '\t' || c == '\n') continue;
    out.push_back(std::string(1, char(c)));
  }
  flush();
  return out;
}

std::unique_ptr<SeqTask> make_seq_task(const std::string& name, int n_min, int n_max) {
  if (name == "dates") return std::make_unique<DateTask>();
  if (name == "phrases")
    return std::make_unique<PhraseTask>(n_min > 0 ? n_min : 2, n_max > 0 ? n_max : 12);
  throw Error("unknown sequence task '" + name + "' (expected dates or phrases)");
}

}  // namespace attnlab
