// Tolerances used across the suite, named once. A test that needs a looser bound says why.
#pragma once

namespace attnlab::test {

// SIMD kernel vs. its double-precision reference loop (float32 rounding, reordered sums).
constexpr float kKernelRel = 1e-5f;
constexpr float kKernelAbs = 1e-6f;
// Outputs compared with PyTorch fixtures (float32 on both sides, different summation order).
constexpr float kTorchRel = 1e-4f;
constexpr float kTorchAbs = 1e-5f;
// Central finite differences in double around float32 code: step and agreement.
constexpr double kFdStep = 1e-3;
constexpr double kFdRel = 2e-2;
constexpr double kFdAbs = 1e-3;
// Layer checks differentiate L = Σ out ⊙ W over up to 64 float32 outputs of order 1 (after
// layer norms and 1/(1-p) dropout scaling): their rounding noise, ~1e-5, is ~5e-3 once divided
// by the central difference's 2h, so the absolute part of the bound is wider there.
constexpr double kFdAbsLayer = 5e-3;
// ...and their step is 3x the default: the noise term shrinks as 1/h while the truncation term
// (h^2 f'''/6 on smooth layers) stays far below 1e-4, so builds that round differently (-O1
// with sanitizers vs -O3) no longer sit at the edge of the bound.
constexpr double kFdStepLayer = 3e-3;
// A backward into a pre-filled buffer vs. pre + the backward into zeros: one extra float32
// rounding of the sum (a GEMM with beta = 1 may add the old value before its last partial sum).
constexpr float kAccumRel = 1e-6f;
constexpr float kAccumAbs = 1e-6f;
// CUDA table vs. CPU table on the same inputs: fp32 kernels on both sides, different summation
// order and device exp/tanh (a few ulp).
constexpr float kCudaRel = 1e-4f;
constexpr float kCudaAbs = 1e-5f;
// CUDA GEMMs round both operands to bf16 (8-bit significand, relative error <= 2^-9 each), so
// each product is off by at most ~2^-8 of |a||b|: the bound is kBf16Gemm * sum_k |a_ik b_kj|
// (twice 2^-8 for slack; fp32 accumulation adds far less).
constexpr double kBf16Gemm = 1.0 / 128;
// A 20-step training loss history on CUDA (bf16 GEMMs) vs. the CPU (fp32): rounding differences
// compound through Adam steps, so the losses agree to a few percent, not to fp32 precision.
constexpr double kBf16LossRel = 3e-2;

}  // namespace attnlab::test
