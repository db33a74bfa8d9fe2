// BPE training, encoding and serialisation (see bpe.hpp). Training keeps pair counts and,
// per pair, the words where it occurs, so each merge touches only the words it changes; the
// best pair comes from a max-heap with lazy deletion, ties broken by the smaller (left, right)
// ids, so the merge list is the same on every platform.
#include "data/bpe.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>

#include "core/check.hpp"
#include "core/json.hpp"

namespace attnlab {

namespace {

const std::string kSpace = "\xE2\x96\x81";  // U+2581, marks a word start
constexpr int kSpecials = 4, kBytes = 256;

uint64_t pair_key(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

std::string byte_token(int b) {
  static const char* hex = "0123456789ABCDEF";
  return std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
}

// Length of the UTF-8 sequence starting at s[i]; 1 for a byte that starts no valid sequence.
size_t utf8_len(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return 1;
  return n;
}

std::vector<std::string> chars_of(const std::string& w) {
  std::vector<std::string> out;
  for (size_t i = 0; i < w.size();) {
    const size_t n = utf8_len(w, i);
    out.push_back(w.substr(i, n));
    i += n;
  }
  return out;
}

// Whitespace-separated words, each with the word-start mark.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (i < text.size()) {
    while (i < text.size() && space(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !space(text[j])) ++j;
    if (j > i) out.push_back(kSpace + text.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

void Bpe::build_index() {
  by_text_.clear();
  rank_.clear();
  merge_result_.clear();
  for (size_t id = kSpecials + kBytes; id < tokens_.size(); ++id)
    by_text_[tokens_[id]] = int32_t(id);
  for (size_t r = 0; r < merges_.size(); ++r) {
    const auto [a, b] = merges_[r];
    rank_[pair_key(a, b)] = int32_t(r);
    const auto it = by_text_.find(tokens_.at(size_t(a)) + tokens_.at(size_t(b)));
    AL_CHECK(it != by_text_.end(), "BPE: merge " << r << " makes no known token");
    merge_result_.push_back(it->second);
  }
}

Bpe Bpe::train(const std::vector<std::string>& texts, int vocab_size, int min_count) {
  Bpe bpe;
  bpe.tokens_ = {"<pad>", "<s>", "</s>", "<unk>"};
  for (int b = 0; b < kBytes; ++b) bpe.tokens_.push_back(byte_token(b));

  std::map<std::string, long> word_freq;  // ordered: ids below do not depend on hashing
  for (const auto& t : texts)
    for (const auto& w : words_of(t)) ++word_freq[w];
  std::map<std::string, long> char_freq;
  for (const auto& [w, f] : word_freq)
    for (const auto& c : chars_of(w)) char_freq[c] += f;
  for (const auto& [c, f] : char_freq)
    if (utf8_len(c, 0) == c.size() && (c.size() > 1 || static_cast<unsigned char>(c[0]) < 0x80))
      bpe.tokens_.push_back(c);
  AL_CHECK(vocab_size >= int(bpe.tokens_.size()),
           "BPE: vocab_size " << vocab_size << " is below the " << bpe.tokens_.size()
                              << " base tokens (specials, bytes, characters)");
  bpe.build_index();

  // Words as symbol sequences; a character without a token (invalid UTF-8) stays out of merges.
  std::vector<std::vector<int32_t>> words;
  std::vector<long> freq;
  for (const auto& [w, f] : word_freq) {
    std::vector<int32_t> s;
    for (const auto& c : chars_of(w)) {
      const auto it = bpe.by_text_.find(c);
      s.push_back(it == bpe.by_text_.end() ? kUnk : it->second);
    }
    words.push_back(std::move(s));
    freq.push_back(f);
  }
  std::unordered_map<uint64_t, long> count;
  std::unordered_map<uint64_t, std::vector<int>> where;
  std::vector<uint64_t> touched;  // pairs whose count changed during one merge
  auto add_pairs = [&](int w, long sign) {
    const auto& s = words[size_t(w)];
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] == kUnk || s[i + 1] == kUnk) continue;
      const uint64_t k = pair_key(s[i], s[i + 1]);
      count[k] += sign * freq[size_t(w)];
      if (sign > 0) where[k].push_back(w);
      touched.push_back(k);
    }
  };
  for (int w = 0; w < int(words.size()); ++w) add_pairs(w, +1);
  touched.clear();

  using Entry = std::pair<long, uint64_t>;  // (count, key): larger count first, then smaller key
  auto worse = [](const Entry& x, const Entry& y) {
    return x.first != y.first ? x.first < y.first : x.second > y.second;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  for (const auto& [k, c] : count) heap.push({c, k});
  std::vector<int> stamp(words.size(), -1);

  while (bpe.size() < vocab_size && !heap.empty()) {
    const auto [c, k] = heap.top();
    heap.pop();
    const auto it = count.find(k);
    if (it == count.end() || it->second != c) continue;  // stale entry
    if (c < min_count) break;
    const int32_t a = int32_t(k >> 32), b = int32_t(k & 0xffffffffu);
    // Two merge paths can spell the same text ("ab"+"c", "a"+"bc"): one token serves both.
    const std::string text = bpe.tokens_[size_t(a)] + bpe.tokens_[size_t(b)];
    const auto known = bpe.by_text_.find(text);
    const int32_t id = known != bpe.by_text_.end() ? known->second : int32_t(bpe.tokens_.size());
    if (known == bpe.by_text_.end()) {
      bpe.tokens_.push_back(text);
      bpe.by_text_[text] = id;
    }
    const int rank = int(bpe.merges_.size());
    bpe.merges_.push_back({a, b});
    touched.clear();
    for (int w : where[k]) {
      if (stamp[size_t(w)] == rank) continue;
      stamp[size_t(w)] = rank;
      auto& s = words[size_t(w)];
      add_pairs(w, -1);
      std::vector<int32_t> merged;
      for (size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
          merged.push_back(id);
          ++i;
        } else {
          merged.push_back(s[i]);
        }
      }
      s = std::move(merged);
      add_pairs(w, +1);
    }
    count.erase(k);
    where.erase(k);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (uint64_t t : touched)
      if (t != k) heap.push({count[t], t});
  }
  bpe.build_index();
  return bpe;
}

std::vector<int32_t> Bpe::encode_word(const std::string& word) const {
  std::vector<int32_t> s;
  for (const auto& c : chars_of(word)) {
    const auto it = by_text_.find(c);
    if (it != by_text_.end()) {
      s.push_back(it->second);
    } else {
      for (unsigned char byte : c) s.push_back(kSpecials + byte);
    }
  }
  // Apply the lowest-ranked merge present, everywhere in the word, until none applies.
  while (s.size() > 1) {
    int best = -1;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      const auto it = rank_.find(pair_key(s[i], s[i + 1]));
      if (it != rank_.end() && (best < 0 || it->second < best)) best = it->second;
    }
    if (best < 0) break;
    const auto [a, b] = merges_[size_t(best)];
    std::vector<int32_t> merged;
    for (size_t i = 0; i < s.size(); ++i) {
      if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
        merged.push_back(merge_result_[size_t(best)]);
        ++i;
      } else {
        merged.push_back(s[i]);
      }
    }
    s = std::move(merged);
  }
  return s;
}

std::vector<int32_t> Bpe::encode(const std::string& text) const {
  std::vector<int32_t> ids;
  for (const auto& w : words_of(text)) {
    const auto e = encode_word(w);
    ids.insert(ids.end(), e.begin(), e.end());
  }
  return ids;
}

std::string Bpe::decode(const std::vector<int32_t>& ids) const {
  std::string s;
  for (int32_t id : ids) {
    AL_CHECK(id >= 0 && id < size(), "BPE: token id " << id << " outside the vocabulary");
    if (id < kSpecials) continue;
    if (id < kSpecials + kBytes)
      s += char(id - kSpecials);
    else
      s += tokens_[size_t(id)];
  }
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, kSpace.size(), kSpace) == 0) {
      if (!out.empty()) out += ' ';
      i += kSpace.size();
    } else {
      out += s[i++];
    }
  }
  return valid_utf8(out);
}

// Byte tokens can spell byte sequences that are not UTF-8 (a model mid-training emits them in
// any order): each maximal invalid piece becomes U+FFFD, as decoders with errors="replace" do,
// so every decoded text is valid UTF-8.
std::string Bpe::valid_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len > 1) {  // no overlong forms, surrogates or code points past U+10FFFF
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
      ok = cp >= (len == 2   ? 0x80u
                  : len == 3 ? 0x800u
                             : 0x10000u) &&
           cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string Bpe::to_json() const {
  nlohmann::json j;
  j["type"] = "bpe";
  j["version"] = 1;
  j["tokens"] = std::vector<std::string>(tokens_.begin() + kSpecials + kBytes, tokens_.end());
  nlohmann::json merges = nlohmann::json::array();
  for (const auto& [a, b] : merges_) merges.push_back({a, b});
  j["merges"] = merges;
  return j.dump();
}

Bpe Bpe::from_json(const std::string& json) {
  const nlohmann::json j = parse_json_object(json, "BPE vocabulary");
  AL_CHECK(j.value("type", "") == "bpe" && j.value("version", 0) == 1,
           "BPE: not a version-1 BPE vocabulary");
  Bpe bpe;
  bpe.tokens_ = {"<pad>", "<s>", "</s>", "<unk>"};
  for (int b = 0; b < kBytes; ++b) bpe.tokens_.push_back(byte_token(b));
  for (const auto& t : j.at("tokens")) bpe.tokens_.push_back(t.get<std::string>());
  for (const auto& m : j.at("merges")) {
    const int32_t a = m.at(0).get<int32_t>(), b = m.at(1).get<int32_t>();
    AL_CHECK(a >= 0 && b >= 0 && a < bpe.size() && b < bpe.size(), "BPE: merge out of range");
    bpe.merges_.push_back({a, b});
  }
  bpe.build_index();
  return bpe;
}

}  // namespace attnlab
