// GEMM, row-major float32: C[M,N] = alpha * op(A)[M,K] op(B)[K,N] + beta * C (beta == 0: C is
// not read). Goto/BLIS structure: B is packed in KC x NC blocks into NR-wide column panels
// (zero-padded at the edge, a transpose absorbed by the packing), a transposed A likewise into
// MR-tall row panels while a plain A is read in place, and an MR x NR register tile of xsimd
// accumulators runs over each pair of panels.
// Threads split C into row or column stripes (pieces claimed by whichever thread runs, see
// kernels/threads.hpp) in one parallel region per call, each stripe a complete GEMM over fixed
// boundaries whose every C tile sums its K blocks in the same order as one thread would
// (deterministic: the same bits for any thread count). Row stripes share one packed B, each
// group of its panels packed by the first thread to need it (SharedB), so that splitting into
// more, smaller stripes does not pack B once per stripe and no thread waits for another.
// Long because: the packing, the micro-kernel and the blocking loops share the tile types and
// cache constants that tie them together; apart they would each need the others' internals.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

// Register tile: MR rows x NV vectors, MR*NV accumulators plus NV loads of B and a broadcast
// of A. AVX-512 has 32 vector registers, AVX2 16; SIMD128 (no FMA: a product temporary too) runs
// on x86's 16 xmm registers of which V8 keeps one as scratch: 4 x 8 measured 40 GFLOP/s in node
// where 5 x 8 and 6 x 8 gave 27 (spills).
#if defined(__wasm_simd128__)
constexpr int kWideMR = 4;
#else
constexpr int kWideMR = W >= 16 ? 12 : 6;
#endif
// Cache blocks: an A block (MC x KC) stays in L2, a B micro-panel (KC x NR) in L1. KC = 256
// also for AVX-512 (a 32 KiB micro-panel): fewer passes over C pay more than the L1 fit
// (measured at one thread: 1024^3 84 -> 91-98 GFLOP/s, 512^3 103 -> 107, KC 384 no better).
constexpr int KC = 256;

// A register tile shape and the cache blocks that go with it. Wide: the general case. Narrow
// (one vector of columns, 8 rows): products with N <= W, such as the per-head Q K^T and P V of
// short sequences, which a wide tile would fill at most half (measured natively at 16x16x16,
// batch 128: 19 GFLOP/s wide).
template <int MRt, int NVt>
struct Tile {
  static constexpr int MR = MRt, NV = NVt, NR = NVt * W;
  static constexpr int MC = MRt * (W >= 16 ? 8 : 16);
  static constexpr int NC = NR * (W >= 16 ? 64 : 256);
};
using Wide = Tile<kWideMR, 2>;
#if !defined(__wasm_simd128__)  // SIMD128's 4 x 8 wide tile already fits N = 16 exactly
using Narrow = Tile<8, 1>;
constexpr int kPackA = std::max(Wide::MC, Narrow::MC), kPackB = std::max(Wide::NC, Narrow::NC);
#else
constexpr int kPackA = Wide::MC, kPackB = Wide::NC;
#endif
constexpr int NR = Wide::NR;  // column stripes (gemm_split)

// A plain A whose row stride is a multiple of 4 KiB puts the micro-kernel's MR row streams in
// one L1 set (12 rows 4 KiB apart in an 8-way cache evict each other): such blocks are copied
// to rows kCopyLd floats apart first. Measured at one thread: 1024^3 94.5 GFLOP/s read in place,
// 99.3 copied (102.8 with lda 1040); 2048x512x2048 95.1 -> 100.9. At a 2 KiB stride (lda 512)
// six rows share a set, which fits, and copying measured no gain.
constexpr int kCopyLd = KC + 16;
inline bool aliasing_rows(int lda) { return lda % 1024 == 0; }

// Copies rows [i0, i0+mc) x cols [k0, k0+kc) of a plain A to pa with row stride kCopyLd.
void copy_a(float* pa, const float* A, int lda, int i0, int mc, int k0, int kc) {
  for (int i = 0; i < mc; ++i) {
    const float* src = A + size_t(i0 + i) * lda + k0;
    float* dst = pa + size_t(i) * kCopyLd;
    int k = 0;
    for (; k + W <= kc; k += W) simd::load(src + k).store_unaligned(dst + k);
    for (; k < kc; ++k) dst[k] = src[k];
  }
}

struct Workspace {
  // packed A block [kPackA][KC] (or a plain A block copied with row stride kCopyLd), packed B
  // block [KC][kPackB]
  std::vector<fbatch> a, b;
  float* pa() { return reinterpret_cast<float*>(a.data()); }
  float* pb() { return reinterpret_cast<float*>(b.data()); }
};

Workspace& workspace() {
  thread_local Workspace ws;
  if (ws.a.empty()) {
    ws.a.resize(size_t(kPackA) * kCopyLd / W);
    ws.b.resize(size_t(kPackB) * KC / W);
  }
  return ws;
}

// Packs rows [i0, i0+mc) x cols [k0, k0+kc) of op(A) = A^T (A is [K,M]) into MR-tall panels:
// pa[p][k][i] = A[k*lda + i0+p+i], zero past mc. A plain A needs no packing (read in place).
template <int MR>
void pack_at(float* pa, const float* A, int lda, int i0, int mc, int k0, int kc) {
  for (int p = 0; p < mc; p += MR) {
    const int mr = std::min(MR, mc - p);
    float* dst = pa + size_t(p) * kc;
    for (int k = 0; k < kc; ++k) {
      const float* src = A + size_t(k0 + k) * lda + i0 + p;
      float* d = dst + size_t(k) * MR;
      int i = 0;
      for (; i < mr; ++i) d[i] = src[i];
      for (; i < MR; ++i) d[i] = 0.f;
    }
  }
}

// Packs rows [k0, k0+kc) x cols [j0, j0+nc) of op(B) into NR-wide panels: pb[p][k][j].
template <int NV>
void pack_b(float* pb, bool trans, const float* B, int ldb, int k0, int kc, int j0, int nc) {
  constexpr int NR = NV * W;
  for (int p = 0; p < nc; p += NR) {
    const int nr = std::min(NR, nc - p);
    float* dst = pb + size_t(p) * kc;
    if (!trans) {  // op(B)(k,j) = B[k*ldb + j]: each k is a contiguous run of columns
      for (int k = 0; k < kc; ++k) {
        const float* src = B + size_t(k0 + k) * ldb + j0 + p;
        float* d = dst + size_t(k) * NR;
        if (nr == NR) {
          for (int v = 0; v < NV; ++v) simd::load(src + v * W).store_aligned(d + v * W);
        } else {
          int j = 0;
          for (; j < nr; ++j) d[j] = src[j];
          for (; j < NR; ++j) d[j] = 0.f;
        }
      }
    } else {
      for (int j = 0; j < nr; ++j) {
        const float* src = B + size_t(j0 + p + j) * ldb + k0;
        for (int k = 0; k < kc; ++k) dst[size_t(k) * NR + j] = src[k];
      }
      for (int j = nr; j < NR; ++j)
        for (int k = 0; k < kc; ++k) dst[size_t(k) * NR + j] = 0.f;
    }
  }
}

// Reads of op(A) in the micro-kernel: from a packed MR-tall panel (a[k*MR + i]) for a transposed
// A, or straight from A's rows (a[i*lda + k]; rows past m repeat row 0) for a plain one, which
// skips packing A (measured natively: 95 -> 102 GFLOP/s at 256x128x128, 69 -> 81 at 32x64x64).
// C tile [m<=MR, n<=NR] = alpha * op(A)-panel * pb-panel + beta * C.
template <class T, bool kPacked>
void micro_kernel(int kc, const float* a, int lda, const float* b, float* c, int ldc, float alpha,
                  float beta, int m, int n) {
  constexpr int MR = T::MR, NV = T::NV, NR = T::NR;
  const float* ar[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) ar[i] = a + (kPacked ? i : size_t(i < m ? i : 0) * lda);
#if !defined(__wasm_simd128__)
  // The C tile is read (beta != 0 or a later K block) and written once the K loop ends: start
  // fetching its lines now (measured at one thread: 1024^3 92 -> 95, 512^3 106 -> 110 GFLOP/s).
  // Prefetching A's rows ahead as well measured slower. Wasm has no prefetch. A full tile
  // takes the unrolled loop (a runtime-bounded one measured 2-3% slower at 512^3).
  if (m == MR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __builtin_prefetch(c + size_t(i) * ldc, 1);
      __builtin_prefetch(c + size_t(i) * ldc + n - 1, 1);
    }
  } else {
    for (int i = 0; i < m; ++i) {
      __builtin_prefetch(c + size_t(i) * ldc, 1);
      __builtin_prefetch(c + size_t(i) * ldc + n - 1, 1);
    }
  }
#endif
  fbatch acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = fbatch(0.f);
  for (int k = 0; k < kc; ++k) {
    fbatch bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = fbatch::load_aligned(b + v * W);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const fbatch ai(kPacked ? ar[0][size_t(k) * MR + i] : ar[i][k]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = simd::madd(ai, bv[v], acc[i][v]);
    }
    b += NR;
  }
  const fbatch va(alpha), vb(beta);
  if (m == MR && n == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        float* p = c + size_t(i) * ldc + v * W;
        const fbatch r = acc[i][v] * va;
        simd::store(p, beta == 0.f ? r : simd::madd(vb, simd::load(p), r));
      }
    return;
  }
  // Partial tile (the edges of C): through a buffer, with compile-time register indices (a
  // loop over the runtime m here made clang spill the accumulators in wasm: 512^3 40 -> 20
  // GFLOP/s).
  alignas(64) float t[MR * NR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v].store_aligned(t + i * NR + v * W);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float& cij = c[size_t(i) * ldc + j];
      cij = beta == 0.f ? alpha * t[i * NR + j] : alpha * t[i * NR + j] + beta * cij;
    }
}

// Where block (jc, pc) of op(B) starts in a B packed whole: jc-major blocks of kc x nc rounded
// up to NR columns (every block before column jc is NC wide, K tall).
template <class T>
size_t packed_b_offset(int K, int N, int jc, int pc) {
  const int nc = std::min(T::NC, N - jc);
  return size_t(jc) * K + size_t(pc) * size_t((nc + T::NR - 1) / T::NR * T::NR);
}

// op(B) packed whole by the threads of one row split as they go (gemm_rows): packed_b_offset's
// layout, each (jc, pc) block cut into groups of kGroupPanels NR-wide panels, each group with a
// state word. The first thread to reach a group claims it, packs it into the shared buffer and
// marks it ready; a thread that finds a group claimed but not ready computes other groups first
// and, if it is still not ready then, packs its own copy (a descheduled packer never makes the
// others wait). Which copy a tile reads changes no bits: packing copies.
struct SharedB {
  enum : uint8_t { kFree, kBusy, kReady };
  float* pb;
  std::atomic<uint8_t>* state;
  int k_blocks, groups;  // per NC block of columns: k_blocks KC blocks of `groups` groups each
  std::atomic<uint8_t>& at(int n_block, int k_block, int g) const {
    return state[(size_t(n_block) * k_blocks + k_block) * groups + g];
  }
};
// Four panels: 64 (AVX2) or 128 (AVX-512) columns, enough groups for two threads to start on
// different ones at 256 columns, each a few microseconds of packing.
constexpr int kGroupPanels = 4;

// shared: op(B) packed whole by whoever reaches a group first (SharedB), or nullptr to pack it
// block by block here.
template <class T>
void gemm_blocked(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, const float* B, int ldb, float beta, float* C, int ldc,
                  const SharedB* shared = nullptr) {
  constexpr int MR = T::MR, NR = T::NR, MC = T::MC, NC = T::NC, GC = kGroupPanels * NR;
  Workspace& ws = workspace();
  const bool copy_plain = !transA && N > NR && aliasing_rows(lda);  // reused over >1 B panel
  float* pa = ws.pa();
  for (int jc = 0; jc < N; jc += NC) {
    const int nc = std::min(NC, N - jc);
    for (int pc = 0; pc < K; pc += KC) {
      const int kc = std::min(KC, K - pc);
      const float b_eff = pc == 0 ? beta : 1.f;
      float* pb = shared ? shared->pb + packed_b_offset<T>(K, N, jc, pc) : ws.pb();
      if (!shared) pack_b<T::NV>(pb, transB, B, ldb, pc, kc, jc, nc);
      for (int ic = 0; ic < M; ic += MC) {
        const int mc = std::min(MC, M - ic);
        if (transA) pack_at<MR>(pa, A, lda, ic, mc, pc, kc);
        if (copy_plain) copy_a(pa, A, lda, ic, mc, pc, kc);
        // columns [j0, j1) of this block against the A block, B's panels at b0
        auto panels = [&](const float* b0, int j0, int j1) {
          for (int jr = j0; jr < j1; jr += NR)
            for (int ir = 0; ir < mc; ir += MR) {
              float* c = C + size_t(ic + ir) * ldc + jc + jr;
              const float* b = b0 + size_t(jr - j0) * kc;
              const int m = std::min(MR, mc - ir), n = std::min(NR, nc - jr);
              if (copy_plain)
                micro_kernel<T, false>(kc, pa + size_t(ir) * kCopyLd, kCopyLd, b, c, ldc, alpha,
                                       b_eff, m, n);
              else if (!transA)
                micro_kernel<T, false>(kc, A + size_t(ic + ir) * lda + pc, lda, b, c, ldc, alpha,
                                       b_eff, m, n);
              else
                micro_kernel<T, true>(kc, pa + size_t(ir) * kc, 0, b, c, ldc, alpha, b_eff, m, n);
            }
        };
        if (!shared) {
          panels(pb, 0, nc);
          continue;
        }
        const int groups = (nc + GC - 1) / GC;
        int later[(NC + GC - 1) / GC], n_later = 0;
        for (int g = 0; g < groups; ++g) {
          std::atomic<uint8_t>& st = shared->at(jc / NC, pc / KC, g);
          const int j0 = g * GC, j1 = std::min(nc, j0 + GC);
          float* dst = pb + size_t(j0) * kc;
          uint8_t s = st.load(std::memory_order_acquire);
          if (s == SharedB::kFree &&
              st.compare_exchange_strong(s, SharedB::kBusy, std::memory_order_relaxed)) {
            pack_b<T::NV>(dst, transB, B, ldb, pc, kc, jc + j0, j1 - j0);
            st.store(SharedB::kReady, std::memory_order_release);
            s = SharedB::kReady;
          }
          if (s == SharedB::kReady)
            panels(dst, j0, j1);
          else
            later[n_later++] = g;
        }
        for (int i = 0; i < n_later; ++i) {
          const int g = later[i], j0 = g * GC, j1 = std::min(nc, j0 + GC);
          const float* src = pb + size_t(j0) * kc;
          if (shared->at(jc / NC, pc / KC, g).load(std::memory_order_acquire) != SharedB::kReady) {
            pack_b<T::NV>(ws.pb(), transB, B, ldb, pc, kc, jc + j0, j1 - j0);
            src = ws.pb();
          }
          panels(src, j0, j1);
        }
      }
    }
  }
}

void gemm_serial(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                 int lda, const float* B, int ldb, float beta, float* C, int ldc) {
#if !defined(__wasm_simd128__)
  if (N <= W)
    return gemm_blocked<Narrow>(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
  gemm_blocked<Wide>(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// C = beta * C (beta == 0: zeros) for the degenerate K == 0 or alpha == 0 products.
void scale_c(int M, int N, float beta, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      C[size_t(i) * ldc + j] = beta == 0.f ? 0.f : beta * C[size_t(i) * ldc + j];
}

constexpr double kGrainFlops = 2e6;  // below this much work per thread, stay on one thread

// Row stripes of whole MR-row panels (no C cache line written by two threads but where a row
// ends) on up to `chunks` threads, in one parallel region: op(B) is packed whole into the
// calling thread's buffer by whichever thread first needs each group of panels (SharedB). A
// stripe's A block (at most MC x KC) and the group of B it runs over (kGroupPanels x KC x NR,
// 64 KiB with AVX2, 128 KiB with AVX-512) stay in the core's L2 while the group is in use.
template <class T>
void gemm_rows(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
               const float* B, int ldb, float beta, float* C, int ldc, int chunks) {
  thread_local std::vector<fbatch> whole;  // op(B) packed, K x N rounded up to NR columns
  thread_local std::unique_ptr<std::atomic<uint8_t>[]> states;
  thread_local size_t n_states = 0;
  const size_t need = size_t(K) * size_t((N + T::NR - 1) / T::NR * T::NR);
  if (whole.size() * W < need) whole.resize((need + W - 1) / W);
  float* pb = reinterpret_cast<float*>(whole.data());
  constexpr int GC = kGroupPanels * T::NR;
  const int groups = std::min((N + GC - 1) / GC, (T::NC + GC - 1) / GC);
  const SharedB shared{pb, nullptr, (K + KC - 1) / KC, groups};
  const size_t n = size_t((N + T::NC - 1) / T::NC) * shared.k_blocks * groups;
  if (n_states < n) {
    states.reset(new std::atomic<uint8_t>[n]);
    n_states = n;
  }
  for (size_t i = 0; i < n; ++i) states[i].store(SharedB::kFree, std::memory_order_relaxed);
  SharedB sh = shared;
  sh.state = states.get();
  threads::parallel_for((M + T::MR - 1) / T::MR, chunks, [&](long b, long e, int) {
    const int i0 = int(b) * T::MR, i1 = std::min(M, int(e) * T::MR);
    gemm_blocked<T>(transA, transB, i1 - i0, N, K, alpha, transA ? A + i0 : A + size_t(i0) * lda,
                    lda, B, ldb, beta, C + size_t(i0) * ldc, ldc, &sh);
  });
}

// One GEMM on up to `chunks` threads: C split into row stripes sharing B (gemm_rows) when there
// are rows enough for two register tiles per thread, else into column stripes of NR-wide panels
// (each packs its own columns of B; the 1 x N products of a decoder step).
void gemm_split(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                const float* B, int ldb, float beta, float* C, int ldc, int chunks) {
  if (chunks <= 1) {
    gemm_serial(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  if (M >= 2 * chunks * Wide::MR) {
#if !defined(__wasm_simd128__)
    if (N <= W)
      return gemm_rows<Narrow>(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                               chunks);
#endif
    gemm_rows<Wide>(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, chunks);
  } else {
    const int panels = (N + NR - 1) / NR;
    threads::parallel_for(panels, chunks, [&](long b, long e, int) {
      const int j0 = int(b) * NR, j1 = std::min(N, int(e) * NR);
      gemm_serial(transA, transB, M, j1 - j0, K, alpha, A, lda,
                  transB ? B + size_t(j0) * ldb : B + j0, ldb, beta, C + j0, ldc);
    });
  }
}

}  // namespace

double gemm_tile_run(long calls) {
  // One packed A panel (MR x kc) and one B micro-panel (kc x NR), zero (nothing grows or turns
  // subnormal), and a C tile written with beta = 0: the inner loop with its operands in L1. The
  // panels are as deep as 24 KiB allows (at least KC), so that the C tile's store and the call
  // weigh less than in any GEMM (SIMD128's 4 x 8 tile: 512 deep).
  constexpr int MR = Wide::MR, NR = Wide::NR;
  constexpr int kc = std::max(KC, 24 * 1024 / int(sizeof(float) * (MR + NR)) / W * W);
  thread_local std::vector<fbatch> a(size_t(MR) * kc / W), b(size_t(kc) * NR / W),
      c(size_t(MR) * NR / W);
  float* pa = reinterpret_cast<float*>(a.data());
  float* pb = reinterpret_cast<float*>(b.data());
  float* pc = reinterpret_cast<float*>(c.data());
  for (long i = 0; i < calls; ++i)
    micro_kernel<Wide, true>(kc, pa, 0, pb, pc, NR, 1.f, 0.f, MR, NR);
  return 2.0 * MR * NR * kc * double(calls);
}

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.f) return scale_c(M, N, beta, C, ldc);
  const int chunks = threads::chunks_for(2.0 * M * N * K, kGrainFlops);
  gemm_split(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, chunks);
}

void gemm_batched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                  float* C, int ldc, long strideC, int batch) {
  if (M <= 0 || N <= 0 || batch <= 0) return;
  const double flops = 2.0 * M * N * K;
  const int chunks = threads::chunks_for(flops * batch, kGrainFlops);
  auto one = [&](long i, int c) {
    if (K <= 0 || alpha == 0.f) return scale_c(M, N, beta, C + i * strideC, ldc);
    gemm_split(transA, transB, M, N, K, alpha, A + i * strideA, lda, B + i * strideB, ldb, beta,
               C + i * strideC, ldc, c);
  };
  if (batch >= chunks) {  // whole products per thread
    threads::parallel_for(batch, chunks, [&](long b, long e, int) {
      for (long i = b; i < e; ++i) one(i, 1);
    });
  } else {
    for (long i = 0; i < batch; ++i) one(i, threads::chunks_for(flops, kGrainFlops));
  }
}

}  // namespace attnlab::kernels::cpu
