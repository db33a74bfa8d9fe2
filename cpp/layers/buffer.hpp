// An owning float buffer in a kernel table's memory (host for CPU/WASM, device for CUDA), and a
// bump allocator that carves named views out of one such buffer. Layers see only raw pointers;
// these types own the storage behind them.
#pragma once
#include <cstddef>
#include <utility>

#include "core/check.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

// The recurrent layers need the table's recurrent entries; a backend without them (a CUDA table
// that does not provide them yet) is refused with a clear error instead of a null call.
inline void require_recurrent_kernels(const KernelTable& K) {
  AL_CHECK(K.tanh_bias_forward && K.tanh_bias_backward && K.gru_gates_forward &&
               K.gru_gates_backward && K.gru_cell_forward && K.gru_cell_backward &&
               K.lstm_cell_forward && K.lstm_cell_backward && K.additive_score_forward &&
               K.additive_score_backward && K.probs_xent,
           "the " << K.name
                  << " kernel table lacks the recurrent kernels (GRU/LSTM/additive attention)");
}

class Buffer {
 public:
  Buffer() = default;
  Buffer(const KernelTable& K, size_t n) : K_(&K), n_(n) {
    p_ = static_cast<float*>(K.alloc(n * sizeof(float)));
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(K_, o.K_);
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~Buffer() {
    if (p_) K_->release(p_);
  }
  float* data() const { return p_; }
  size_t size() const { return n_; }
  void zero() const {
    if (p_) K_->zero(p_, n_ * sizeof(float));
  }

 private:
  const KernelTable* K_ = nullptr;
  float* p_ = nullptr;
  size_t n_ = 0;
};

// Hands out consecutive slices of a buffer; with a null base it only counts (first pass sizes
// the buffer, second pass carves it).
class Carver {
 public:
  explicit Carver(float* base = nullptr) : base_(base) {}
  float* take(size_t n) {
    float* p = base_ ? base_ + used_ : nullptr;
    used_ += n;
    return p;
  }
  size_t used() const { return used_; }

 private:
  float* base_;
  size_t used_ = 0;
};

}  // namespace attnlab
