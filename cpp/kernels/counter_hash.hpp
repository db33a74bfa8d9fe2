// Counter-based random bits for dropout masks, shared by the CPU and CUDA tables. Element i of
// a mask drawn under (seed, offset) is a pure function of (seed, offset + i): splitmix64's
// output function applied to a Weyl sequence keyed by the mixed seed. Integer-only, so every
// table, thread count and WebAssembly build draws the identical mask, and any element can be
// computed without the ones before it (one GPU thread per element).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define AL_HOST_DEVICE __host__ __device__
#else
#define AL_HOST_DEVICE
#endif

namespace attnlab::counter_hash {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's finaliser: a bijection on 64 bits with full avalanche.
AL_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 32 random bits for counter i under seed.
AL_HOST_DEVICE inline uint32_t bits32(uint64_t seed, uint64_t i) {
  return static_cast<uint32_t>(mix64(mix64(seed) + (i + 1) * kGolden) >> 32);
}

// An element is dropped when bits32 < threshold = floor(p * 2^32), p in [0, 1).
inline uint32_t drop_threshold(float p) {
  return static_cast<uint32_t>(static_cast<double>(p) * 4294967296.0);
}

// The inverted-dropout mask value of counter i: 0 (dropped) or keep_scale = 1 / (1 - p).
AL_HOST_DEVICE inline float dropout_mask(uint64_t seed, uint64_t i, uint32_t threshold,
                                         float keep_scale) {
  return bits32(seed, i) < threshold ? 0.f : keep_scale;
}

}  // namespace attnlab::counter_hash
