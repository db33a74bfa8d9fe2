// Step-by-step decoding of the recurrent encoder-decoders for beam search (see
// recurrent_seq2seq.hpp): the sources are encoded once for all `capacity` rows, each step runs
// the kind's decoder step on every row, and reorder() gathers the recurrent state of the parents
// into the new rows (re-encoding only when a row's source changes, which one-source beam search
// never does).
#include <algorithm>

#include "core/check.hpp"
#include "models/recurrent_seq2seq.hpp"

namespace attnlab {

class RecurrentStepDecoder : public StepDecoder {
 public:
  RecurrentStepDecoder(RecurrentSeq2Seq& m, const std::vector<std::vector<int32_t>>& srcs,
                       int capacity, int max_steps)
      : m_(m), rows_(int(srcs.size())), max_steps_(max_steps) {
    AL_CHECK(!srcs.empty() && capacity >= int(srcs.size()) && max_steps >= 1,
             "step decoder: need sources, capacity >= their number and max_steps >= 1");
    src_ = srcs;
    src_.resize(size_t(capacity), srcs[0]);
    m_.start_decoding(src_, max_steps_);
  }

  std::vector<float> step(const std::vector<int32_t>& tokens) override {
    AL_CHECK(int(tokens.size()) == rows_,
             "step decoder: " << tokens.size() << " tokens for " << rows_ << " rows");
    AL_CHECK(t_ < max_steps_, "step decoder: past its " << max_steps_ << " steps");
    const int V = m_.shape_.tgt_vocab;
    for (int32_t y : tokens)
      AL_CHECK(y >= 0 && y < V, "step decoder: token " << y << " out of range [0, " << V << ")");
    std::vector<int32_t> prev(src_.size(), int32_t(m_.shape_.bos_id));  // spare rows: <s>
    std::copy(tokens.begin(), tokens.end(), prev.begin());
    m_.step(t_, prev.data());
    std::vector<float> z(size_t(rows_) * V);
    m_.kt_.download(z.data(), m_.logits_ + size_t(t_) * src_.size() * V, z.size() * sizeof(float));
    ++t_;
    m_.T_ = t_;
    return z;
  }

  void reorder(const std::vector<int>& parents) override {
    AL_CHECK(parents.size() <= src_.size(), "step decoder: more rows than its capacity");
    for (int p : parents) AL_CHECK(p >= 0 && p < rows_, "step decoder: no row " << p);
    const size_t B = src_.size();
    // the state entering step t_, gathered on the host
    std::vector<std::vector<float>> state;
    std::vector<int> widths;
    for (const auto& [ptr, w] : m_.state_at(t_)) {
      std::vector<float> old(B * size_t(w));
      m_.kt_.download(old.data(), ptr, old.size() * sizeof(float));
      std::vector<float> next = old;
      for (size_t i = 0; i < parents.size(); ++i)
        std::copy_n(old.begin() + long(size_t(parents[i]) * w), w, next.begin() + long(i * w));
      state.push_back(std::move(next));
      widths.push_back(w);
    }
    std::vector<std::vector<int32_t>> src = src_;
    for (size_t i = 0; i < parents.size(); ++i) src[i] = src_[size_t(parents[i])];
    if (src != src_) {  // the rows read other sources now: encode them afresh
      src_ = std::move(src);
      m_.start_decoding(src_, max_steps_);
    }
    const auto slices = m_.state_at(t_);
    for (size_t k = 0; k < slices.size(); ++k)
      m_.kt_.upload(slices[k].first, state[k].data(), state[k].size() * sizeof(float));
    rows_ = int(parents.size());
  }

  int rows() const override { return rows_; }

 private:
  RecurrentSeq2Seq& m_;
  std::vector<std::vector<int32_t>> src_;  // each row's source (capacity rows)
  int rows_, max_steps_, t_ = 0;
};

void RecurrentSeq2Seq::start_decoding(const std::vector<std::vector<int32_t>>& srcs,
                                      int max_steps) {
  const int B = int(srcs.size());
  int S = 0;
  for (const auto& s : srcs) S = std::max(S, int(s.size()));
  std::vector<int32_t> bm(size_t(B) * S, shape_.pad_id);
  for (int b = 0; b < B; ++b)
    std::copy(srcs[size_t(b)].begin(), srcs[size_t(b)].end(), bm.begin() + long(b) * S);
  ws_.reset();
  encode(bm, B, S);
  alloc_decoder(max_steps);
}

std::unique_ptr<StepDecoder> RecurrentSeq2Seq::step_decoder(
    const std::vector<std::vector<int32_t>>& srcs, int capacity, int max_steps) {
  return std::make_unique<RecurrentStepDecoder>(*this, srcs, capacity, max_steps);
}

}  // namespace attnlab
