// Shared by the CUDA tests (test_cuda_*.cpp): device buffers, random inputs and the comparison
// against the CPU table. The [cuda] cases compile only in the CUDA build (tests/cpp/tests.cmake);
// without a CUDA device cuda_kernels() is null and every case is reported as skipped (skip.hpp).
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "cuda/device.hpp"
#include "kernels/kernels.hpp"
#include "skip.hpp"
#include "tolerances.hpp"

// The skip message starts "no CUDA device" and carries the runtime's error text, which
// scripts/gpu-check.sh reports (a skip for another reason, such as no NCCL, says so instead).
#define REQUIRE_GPU_OR_SKIP() \
  if (!attnlab::cuda_kernels()) ATTNLAB_SKIP(::attnlab::test::no_gpu_reason())

namespace attnlab::test {

inline const char* no_gpu_reason() {
  static const std::string reason = std::string("no CUDA device (") + cuda::device_status() + ")";
  return reason.c_str();
}

// A device copy of a host vector, released on scope exit.
template <class T>
struct DevBuf {
  const KernelTable& k;
  size_t n;
  T* p;
  DevBuf(const KernelTable& table, const std::vector<T>& host)
      : k(table), n(host.size()), p(static_cast<T*>(table.alloc(n * sizeof(T)))) {
    if (n) k.upload(p, host.data(), n * sizeof(T));
  }
  ~DevBuf() { k.release(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(n);
    if (n) k.download(h.data(), p, n * sizeof(T));
    return h;
  }
};

// Device outputs start as this value, so an entry that writes nothing cannot pass.
inline std::vector<float> junk(size_t n) { return std::vector<float>(n, -7.f); }

inline std::vector<float> randv(size_t n, Rng& rng, float std = 1.f) {
  std::vector<float> v(n);
  for (auto& x : v) x = rng.normal() * std;
  return v;
}

// Every element within abs + rel * |want|; reports the first one that is not.
inline void require_close(const std::vector<float>& got, const std::vector<float>& want,
                          float rel = kCudaRel, float abs = kCudaAbs) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i])) continue;
    INFO("index " << i << ": cuda " << got[i] << " vs cpu " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i]));
  }
}

// Row-major element of op(X) at (r, c), X stored with leading dimension ld.
inline float at(const std::vector<float>& X, bool trans, int ld, int r, int c, long offset = 0) {
  return trans ? X[offset + size_t(c) * ld + r] : X[offset + size_t(r) * ld + c];
}

}  // namespace attnlab::test
