// The CUDA build's answer to "why is there no GPU table?" (plain C++, for the tests and tools).
#pragma once

namespace attnlab::cuda {

// "" when a CUDA device answered (cuda_kernels() is not null); otherwise the runtime's error
// name and text ("cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected"),
// or "0 devices".
const char* device_status();

// cuBLAS GEMM calls made by this process so far (gemm, gemm_batched and the grid: one each),
// for the launch count per training step of bench/cuda/model_bench.cpp.
long gemm_calls();

}  // namespace attnlab::cuda
