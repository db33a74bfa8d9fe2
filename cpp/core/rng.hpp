// Deterministic random numbers, identical natively and in WebAssembly.
// std:: distributions differ between standard libraries, so every draw used for parameter
// init, dropout masks and task generation goes through this generator (splitmix64 seeding,
// xoshiro128** state, Box-Muller normals) and gives the same stream on every platform.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace attnlab {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = static_cast<uint32_t>((z ^ (z >> 31)) >> 16);
    }
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
    has_spare_ = false;
  }

  uint32_t next_u32() {
    const uint32_t result = rotl(s_[1] * 5u, 7) * 9u;
    const uint32_t t = s_[1] << 9;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 11);
    return result;
  }

  // Uniform in [0, 1) with 24 random bits (exactly representable as float).
  float uniform() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, bias below 2^-32 * n).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint64_t>(next_u32()) * n) >> 32);
  }

  // Standard normal by Box-Muller, computed in double so both platforms round alike.
  float normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = (static_cast<double>(next_u32()) + 1.0) * (1.0 / 4294967296.0);
    double u2 = static_cast<double>(next_u32()) * (1.0 / 4294967296.0);
    double r = std::sqrt(-2.0 * std::log(u1));
    double th = 6.283185307179586 * u2;
    spare_ = static_cast<float>(r * std::sin(th));
    has_spare_ = true;
    return static_cast<float>(r * std::cos(th));
  }

  // The whole state (the four xoshiro words, the held Box-Muller spare's bits, whether one is
  // held), for checkpoints that resume a run exactly: set_state(state()) continues the stream.
  using State = std::array<uint32_t, 6>;
  State state() const {
    uint32_t spare_bits = 0;
    std::memcpy(&spare_bits, &spare_, sizeof spare_bits);
    return {s_[0], s_[1], s_[2], s_[3], spare_bits, has_spare_ ? 1u : 0u};
  }
  void set_state(const State& st) {
    for (int i = 0; i < 4; ++i) s_[i] = st[size_t(i)];
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
    std::memcpy(&spare_, &st[4], sizeof spare_);
    has_spare_ = st[5] != 0;
  }

 private:
  static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
  uint32_t s_[4];
  float spare_ = 0.f;
  bool has_spare_ = false;
};

}  // namespace attnlab
