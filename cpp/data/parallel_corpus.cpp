// Parallel TSV corpus and token-bucketed batches (see parallel_corpus.hpp).
#include "data/parallel_corpus.hpp"

#include <algorithm>
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
    src_len_.push_back(ls);
    tgt_len_.push_back(lt);
  }
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

TokenBatcher::TokenBatcher(std::vector<int> cost, long max_tokens, uint64_t seed, size_t window)
    : cost_(std::move(cost)), max_tokens_(max_tokens), seed_(seed), window_(window) {
  AL_CHECK(!cost_.empty(), "token batcher: no examples");
  AL_CHECK(max_tokens_ > 0 && window_ > 0, "token batcher: max_tokens and window must be > 0");
  plan_epoch();
}

void TokenBatcher::plan_epoch() {
  Rng rng(seed_ * 0x9E3779B97F4A7C15ull + uint64_t(epoch_));
  std::vector<size_t> order(cost_.size());
  std::iota(order.begin(), order.end(), size_t(0));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(uint32_t(i))]);
  batches_.clear();
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

std::vector<size_t> TokenBatcher::next() {
  if (pos_ == batches_.size()) {
    ++epoch_;
    plan_epoch();
  }
  return batches_[pos_++];
}

nlohmann::json TokenBatcher::state() const {
  return {{"seed", seed_},
          {"epoch", epoch_},
          {"position", pos_},
          {"examples", cost_.size()},
          {"max_tokens", max_tokens_}};
}

void TokenBatcher::restore(const nlohmann::json& s) {
  AL_CHECK(s.at("examples").get<size_t>() == cost_.size() &&
               s.at("max_tokens").get<long>() == max_tokens_,
           "token batcher: saved state belongs to another corpus or batch size");
  seed_ = s.at("seed").get<uint64_t>();
  epoch_ = s.at("epoch").get<int>();
  plan_epoch();
  pos_ = s.at("position").get<size_t>();
  AL_CHECK(pos_ <= batches_.size(), "token batcher: saved position past the epoch's end");
}

}  // namespace attnlab
