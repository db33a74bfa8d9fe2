// Parallel TSV corpus and token-bucketed batches (see parallel_corpus.hpp).
#include "data/parallel_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include "core/check.hpp"
#include "core/rng.hpp"

namespace attnlab {

namespace {

// Splits "source\ttarget" (a trailing '\r' dropped); false when there is no tab.
bool split_line(std::string line, std::string& src, std::string& tgt) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const size_t tab = line.find('\t');
  if (tab == std::string::npos) return false;
  src = line.substr(0, tab);
  tgt = line.substr(tab + 1);
  return true;
}

}  // namespace

ParallelCorpus::ParallelCorpus(const std::string& path, const Bpe& bpe, int max_len)
    : path_(path), bpe_(bpe) {
  std::ifstream in(path, std::ios::binary);
  AL_CHECK(in, "cannot open corpus " << path);
  std::string line, src, tgt;
  uint64_t offset = 0;
  for (long n = 1; std::getline(in, line); ++n) {
    const uint64_t here = offset;
    offset += line.size() + 1;
    if (line.empty() || line == "\r") continue;
    AL_CHECK(split_line(line, src, tgt), path << ":" << n << ": no tab between source and target");
    const int ls = int(bpe.encode(src).size()), lt = int(bpe.encode(tgt).size());
    if (ls == 0 || lt == 0 || ls > max_len || lt > max_len) {
      ++skipped_;
      continue;
    }
    offset_.push_back(here);
    lexicon_.push_back(is_lexicon_source(src) ? 1 : 0);
    src_len_.push_back(ls);
    tgt_len_.push_back(lt);
  }
}

bool ParallelCorpus::is_lexicon_source(const std::string& src) {
  const size_t n = std::char_traits<char>::length(kLexiconTag);
  return src.compare(0, n, kLexiconTag) == 0 && (src.size() == n || src[n] == ' ');
}

size_t ParallelCorpus::lexicon_items() const {
  return size_t(std::count(lexicon_.begin(), lexicon_.end(), uint8_t(1)));
}

std::pair<std::string, std::string> ParallelCorpus::text(size_t i) const {
  AL_CHECK(i < size(), "pair " << i << " outside the corpus of " << size());
  std::ifstream in(path_, std::ios::binary);
  AL_CHECK(in, "cannot reopen corpus " << path_);
  in.seekg(std::streamoff(offset_[i]));
  std::string line, src, tgt;
  AL_CHECK(std::getline(in, line) && split_line(line, src, tgt),
           "corpus " << path_ << " changed since it was indexed");
  return {src, tgt};
}

std::pair<std::vector<int32_t>, std::vector<int32_t>> ParallelCorpus::ids(size_t i) const {
  const auto [src, tgt] = text(i);
  return {bpe_.encode(src), bpe_.encode(tgt)};
}

std::vector<std::string> ParallelCorpus::read_sentences(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  AL_CHECK(in, "cannot open corpus " << path);
  std::vector<std::string> out;
  std::string line, src, tgt;
  while (std::getline(in, line))
    if (split_line(line, src, tgt)) {
      out.push_back(src);
      out.push_back(tgt);
    }
  return out;
}

TokenBatcher::TokenBatcher(std::vector<int> cost, long max_tokens, uint64_t seed, size_t window,
                           std::vector<uint8_t> lexicon, double lexicon_share)
    : cost_(std::move(cost)),
      lexicon_(std::move(lexicon)),
      share_(lexicon_share),
      max_tokens_(max_tokens),
      seed_(seed),
      window_(window) {
  AL_CHECK(!cost_.empty(), "token batcher: no examples");
  AL_CHECK(max_tokens_ > 0 && window_ > 0, "token batcher: max_tokens and window must be > 0");
  if (share_ >= 0) {
    AL_CHECK(share_ < 1, "lexicon share must be in [0, 1), got " << share_);
    AL_CHECK(lexicon_.size() == cost_.size(), "token batcher: the lexicon mask has "
                                                  << lexicon_.size() << " entries for "
                                                  << cost_.size() << " examples");
    for (size_t i = 0; i < lexicon_.size(); ++i)
      if (lexicon_[i]) lex_items_.push_back(i);
    AL_CHECK(lex_items_.size() < cost_.size(),
             "a lexicon share needs sentences besides the lexicon items (the corpus has only "
             "items tagged "
                 << ParallelCorpus::kLexiconTag << ")");
    AL_CHECK(share_ == 0 || !lex_items_.empty(),
             "a lexicon share of " << share_ << " needs lexicon items (sources tagged "
                                   << ParallelCorpus::kLexiconTag << "), and the corpus has none");
  }
  plan_epoch();
}

void TokenBatcher::plan_epoch() {
  Rng rng(seed_ * 0x9E3779B97F4A7C15ull + uint64_t(epoch_));
  std::vector<size_t> order;
  if (share_ < 0) {
    order.resize(cost_.size());
    std::iota(order.begin(), order.end(), size_t(0));
  } else {
    for (size_t i = 0; i < cost_.size(); ++i)
      if (!lexicon_[i]) order.push_back(i);
  }
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(uint32_t(i))]);
  batches_.clear();
  if (share_ >= 0) return plan_mixed_epoch(std::move(order), rng);
  for (size_t w = 0; w < order.size(); w += window_) {
    const auto first = order.begin() + long(w);
    const auto last = order.begin() + long(std::min(order.size(), w + window_));
    std::stable_sort(first, last, [&](size_t a, size_t b) { return cost_[a] < cost_[b]; });
    std::vector<size_t> cur;
    long widest = 0;
    for (auto it = first; it != last; ++it) {
      const long c = cost_[*it];
      const long wider = std::max(widest, c);
      if (!cur.empty() && long(cur.size() + 1) * wider > max_tokens_) {
        batches_.push_back(std::move(cur));
        cur.clear();
        widest = 0;
      }
      cur.push_back(*it);
      widest = std::max(widest, c);
    }
    if (!cur.empty()) batches_.push_back(std::move(cur));
  }
  for (size_t i = batches_.size(); i > 1; --i)
    std::swap(batches_[i - 1], batches_[rng.below(uint32_t(i))]);
  pos_ = 0;
}

size_t TokenBatcher::lexicon_item(size_t k) {
  const long L = long(lex_items_.size());
  const long g = lex_pos_ + long(k);
  const long e = lex_epoch_ + g / L;
  if (e != lex_perm_epoch_) {  // a seeded permutation per pass over the items
    Rng rng(seed_ * 0xD1B54A32D192ED03ull + uint64_t(e) * 0x9E3779B97F4A7C15ull + 0x6C65);
    lex_perm_ = lex_items_;
    for (size_t i = lex_perm_.size(); i > 1; --i)
      std::swap(lex_perm_[i - 1], lex_perm_[rng.below(uint32_t(i))]);
    lex_perm_epoch_ = e;
  }
  return lex_perm_[size_t(g % L)];
}

void TokenBatcher::plan_mixed_epoch(std::vector<size_t> order, Rng& rng) {
  const double ratio = share_ / (1 - share_);  // lexicon rows per sentence row
  double carry = 0;
  size_t used = 0;  // lexicon items taken this epoch
  auto lexicon_rows = [&](size_t n) { return size_t(std::floor(carry + double(n) * ratio)); };
  for (size_t w = 0; w < order.size(); w += window_) {
    const auto first = order.begin() + long(w);
    const auto last = order.begin() + long(std::min(order.size(), w + window_));
    std::stable_sort(first, last, [&](size_t a, size_t b) { return cost_[a] < cost_[b]; });
    std::vector<size_t> cur;
    long widest = 0, lex_widest = 0;
    size_t peeked = 0;  // lexicon items whose cost is in lex_widest
    auto close = [&] {
      const size_t k = lexicon_rows(cur.size());
      carry += double(cur.size()) * ratio - double(k);
      // k items interleaved: row j is an item when floor((j+1) k / R) passes floor(j k / R)
      const size_t R = cur.size() + k;
      std::vector<size_t> rows;
      rows.reserve(R);
      size_t s = 0, l = 0;
      for (size_t j = 0; j < R; ++j) {
        if ((j + 1) * k / R > j * k / R)
          rows.push_back(lexicon_item(used + l++));
        else
          rows.push_back(cur[s++]);
      }
      used += k;
      batches_.push_back(std::move(rows));
      cur.clear();
      widest = lex_widest = 0;
      peeked = 0;
    };
    for (auto it = first; it != last; ++it) {
      const size_t k = lexicon_rows(cur.size() + 1);
      long lw = lex_widest;
      for (size_t p = peeked; p < k; ++p) lw = std::max(lw, long(cost_[lexicon_item(used + p)]));
      const long wider = std::max({widest, long(cost_[*it]), lw});
      if (!cur.empty() && long(cur.size() + 1 + k) * wider > max_tokens_) close();
      cur.push_back(*it);
      widest = std::max(widest, long(cost_[*it]));
      const size_t k_now = lexicon_rows(cur.size());
      for (; peeked < k_now; ++peeked)
        lex_widest = std::max(lex_widest, long(cost_[lexicon_item(used + peeked)]));
    }
    if (!cur.empty()) close();
  }
  for (size_t i = batches_.size(); i > 1; --i)
    std::swap(batches_[i - 1], batches_[rng.below(uint32_t(i))]);
  pos_ = 0;
  const long L = long(lex_items_.size());
  next_lex_epoch_ = L ? lex_epoch_ + (lex_pos_ + long(used)) / L : 0;
  next_lex_pos_ = L ? (lex_pos_ + long(used)) % L : 0;
}

std::vector<size_t> TokenBatcher::next() {
  if (pos_ == batches_.size()) {
    ++epoch_;
    lex_epoch_ = next_lex_epoch_;
    lex_pos_ = next_lex_pos_;
    plan_epoch();
  }
  return batches_[pos_++];
}

nlohmann::json TokenBatcher::state() const {
  nlohmann::json s = {{"seed", seed_},
                      {"epoch", epoch_},
                      {"position", pos_},
                      {"examples", cost_.size()},
                      {"max_tokens", max_tokens_}};
  if (share_ >= 0) {  // the lexicon stream where this epoch started (plan_epoch replays it)
    s["lexicon_share"] = share_;
    s["lexicon_epoch"] = lex_epoch_;
    s["lexicon_position"] = lex_pos_;
  }
  return s;
}

void TokenBatcher::restore(const nlohmann::json& s) {
  AL_CHECK(s.at("examples").get<size_t>() == cost_.size() &&
               s.at("max_tokens").get<long>() == max_tokens_,
           "token batcher: saved state belongs to another corpus or batch size");
  AL_CHECK(s.value("lexicon_share", -1.0) == (share_ < 0 ? -1.0 : share_),
           "token batcher: saved state has another lexicon share");
  seed_ = s.at("seed").get<uint64_t>();
  epoch_ = s.at("epoch").get<int>();
  if (share_ >= 0) {
    lex_epoch_ = s.at("lexicon_epoch").get<long>();
    lex_pos_ = s.at("lexicon_position").get<long>();
    AL_CHECK(
        lex_epoch_ >= 0 && lex_pos_ >= 0 && lex_pos_ < long(std::max<size_t>(1, lex_items_.size())),
        "token batcher: saved lexicon position out of range");
    lex_perm_epoch_ = -1;
  }
  plan_epoch();
  pos_ = s.at("position").get<size_t>();
  AL_CHECK(pos_ <= batches_.size(), "token batcher: saved position past the epoch's end");
}

}  // namespace attnlab
