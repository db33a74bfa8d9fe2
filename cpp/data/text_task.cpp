// Text corpus task, word-level or BPE subwords (see text_task.hpp).
#include "data/text_task.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/check.hpp"

namespace attnlab {

namespace {

bool word_char(unsigned char c) { return std::isalnum(c) != 0; }
bool mark(unsigned char c) { return std::strchr(".,;:!?\"()-", c) != nullptr && c != 0; }
bool sentence_end(const std::string& w) { return w == "." || w == "!" || w == "?"; }

}  // namespace

std::vector<std::string> text_words(const std::string& text) {
  std::vector<std::string> out;
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (word_char(c)) {
      std::string w;
      while (i < n) {
        const unsigned char d = static_cast<unsigned char>(text[i]);
        const bool inner_apostrophe = d == '\'' && i + 1 < n &&
                                      word_char(static_cast<unsigned char>(text[i + 1])) &&
                                      !w.empty();
        if (!word_char(d) && !inner_apostrophe) break;
        w += char(std::tolower(d));
        ++i;
      }
      out.push_back(w);
    } else if (mark(c)) {
      if (!(c == '-' && !out.empty() && out.back() == "-")) out.emplace_back(1, char(c));
      ++i;
    } else if (c == 0xE2 && i + 2 < n && static_cast<unsigned char>(text[i + 1]) == 0x80) {
      const unsigned char e = static_cast<unsigned char>(text[i + 2]);  // U+2010..U+201F
      if (e >= 0x90 && e <= 0x95)
        out.emplace_back("-");
      else if (e == 0x9C || e == 0x9D)
        out.emplace_back("\"");
      i += 3;
    } else {
      ++i;
    }
  }
  return out;
}

std::vector<int32_t> text_ids(const std::vector<std::string>& words,
                              const std::vector<std::string>& vocab) {
  std::unordered_map<std::string, int32_t> ids;
  for (size_t i = kFirstSymbol + 1; i < vocab.size(); ++i) ids.emplace(vocab[i], int32_t(i));
  std::vector<int32_t> out;
  out.reserve(words.size());
  for (const std::string& w : words) {
    auto it = ids.find(w);
    out.push_back(it == ids.end() ? Vocab::kUnk : it->second);
  }
  return out;
}

std::vector<std::string> text_sentences(const std::string& text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  auto closing = [&](size_t i) {  // length of a closing quote/bracket at i, 0 if none
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\'' || c == ')' || c == ']') return size_t(1);
    if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
      const unsigned char e = static_cast<unsigned char>(text[i + 2]);
      if (e == 0x99 || e == 0x9D) return size_t(3);  // ’ ”
    }
    return size_t(0);
  };
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    while (!cur.empty() && cur.back() == ' ') cur.pop_back();
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const char c = text[i];
    if (c == '\n') {
      flush();
      ++i;
    } else if (space(c)) {
      if (!cur.empty() && cur.back() != ' ') cur += ' ';
      ++i;
    } else if (c == '.' || c == '!' || c == '?') {
      size_t j = i + 1;
      while (j < n && (text[j] == '.' || text[j] == '!' || text[j] == '?')) ++j;
      for (size_t k; j < n && (k = closing(j)) > 0;) j += k;
      cur.append(text, i, j - i);
      i = j;
      if (i >= n || space(text[i])) flush();
    } else {
      cur += c;
      ++i;
    }
  }
  flush();
  return out;
}

TextTask::TextTask(const std::string& text, int vocab_size, int max_len, int min_len, bool bpe)
    : max_len_(max_len) {
  auto keep = [&](const std::vector<int32_t>& ids) {
    if (int(ids.size()) >= min_len && int(ids.size()) <= max_len_)
      (source_hash(ids) % 10 == 0 ? test_ : train_).push_back(ids);
  };
  if (bpe) {
    const std::vector<std::string> sentences = text_sentences(text);
    bpe_ = Bpe::train(sentences, vocab_size);
    for (const std::string& s : sentences) keep(bpe_->encode(s));
    AL_CHECK(!train_.empty() && !test_.empty(), "text task: the corpus has too few sentences of "
                                                    << min_len << " to " << max_len_ << " tokens");
    return;
  }
  const std::vector<std::string> words = text_words(text);
  std::unordered_map<std::string, long> count;
  for (const std::string& w : words) ++count[w];
  std::vector<std::pair<std::string, long>> order(count.begin(), count.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (size_t i = 0; i < order.size() && vocab_.size() < vocab_size; ++i)
    vocab_.add(order[i].first);
  const std::vector<int32_t> ids = text_ids(words, tokens());
  std::vector<int32_t> cur;
  for (size_t i = 0; i < ids.size(); ++i) {
    cur.push_back(ids[i]);
    if (!sentence_end(words[i]) && i + 1 < ids.size()) continue;
    keep(cur);
    cur.clear();
  }
  AL_CHECK(!train_.empty() && !test_.empty(), "text task: the corpus has too few sentences of "
                                                  << min_len << " to " << max_len_ << " tokens");
}

std::vector<std::string> TextTask::tokens() const {
  std::vector<std::string> out;
  for (int i = 0; i < src_vocab(); ++i) out.push_back(src_token(i));
  return out;
}

Example TextTask::sample(Rng& rng, Split split) const {
  const auto& pool = split == Split::Train ? train_ : test_;
  return {{}, pool[rng.below(uint32_t(pool.size()))]};
}

Example TextTask::draw(Rng& rng) const { return sample(rng, Split::Train); }

std::unique_ptr<Task> make_text_task(const nlohmann::json& o) {
  const std::string file = o.value("file", o.value("corpus", std::string()));
  AL_CHECK(!file.empty(), "the text task needs task option \"file\" (or --corpus FILE)");
  std::ifstream f(file, std::ios::binary);
  AL_CHECK(f, "text task: cannot open " << file);
  std::stringstream ss;
  ss << f.rdbuf();
  const int vocab = o.value("vocab", 2000), max_len = o.value("max_len", 40),
            min_len = o.value("min_len", 3);
  const std::string tokenizer = o.value("tokenizer", std::string("word"));
  AL_CHECK(tokenizer == "word" || tokenizer == "bpe",
           "text task: tokenizer must be \"word\" or \"bpe\", got \"" << tokenizer << "\"");
  AL_CHECK(vocab >= 5 && vocab <= 100000, "text task: vocab must be in [5, 100000], got " << vocab);
  AL_CHECK(min_len >= 1 && max_len >= min_len && max_len <= 1000,
           "text task: need 1 <= min_len <= max_len <= 1000");
  return std::make_unique<TextTask>(ss.str(), vocab, max_len, min_len, tokenizer == "bpe");
}

}  // namespace attnlab
