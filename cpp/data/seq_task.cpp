// Vocabulary, tokenizer and split helpers shared by the sequence tasks.
#include "data/seq_task.hpp"

#include "core/check.hpp"
#include "data/date_task.hpp"
#include "data/phrase_task.hpp"
#include "models/config.hpp"

namespace attnlab {

Vocab::Vocab() {
  for (const char* s : {"<pad>", "<s>", "</s>", "<unk>"}) add(s);
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

bool SeqTask::in_split(const std::vector<int32_t>& src, Split split) const {
  const bool test = int(source_hash(src) % 100) < test_percent_;
  return test == (split == Split::Test);
}

SeqExample SeqTask::sample_aligned(Rng& rng, Split split) const {
  for (int tries = 0; tries < 100000; ++tries) {
    SeqExample e = draw_aligned(rng);
    if (in_split(e.src, split)) return e;
  }
  throw Error("task " + name() + " could not draw an example of the requested split");
}

Example SeqTask::draw(Rng& rng) const {
  SeqExample e = draw_aligned(rng);
  return {std::move(e.src), std::move(e.tgt)};
}

std::vector<int32_t> SeqTask::encode(const std::string& text) const {
  std::vector<int32_t> ids;
  for (const auto& t : split_tokens(text)) ids.push_back(src_.id(t));
  AL_CHECK(!ids.empty(), name() << ": the source text has no tokens");
  return ids;
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

std::unique_ptr<SeqTask> make_seq_task(const std::string& name, const nlohmann::json& options) {
  const nlohmann::json o = options.is_object() ? options : nlohmann::json::object();
  if (name == "dates") return std::make_unique<DateTask>();
  if (name == "phrases") {
    const int lo = json_int(o, "n_min", 2, 2, 200);
    return std::make_unique<PhraseTask>(lo, json_int(o, "n_max", 12, lo, 200));
  }
  throw Error("unknown sequence task '" + name + "' (expected dates or phrases)");
}

// The shared task registry's entries for these tasks.
std::unique_ptr<Task> make_dates_task(const nlohmann::json& o) { return make_seq_task("dates", o); }
std::unique_ptr<Task> make_phrases_task(const nlohmann::json& o) {
  return make_seq_task("phrases", o);
}

}  // namespace attnlab
