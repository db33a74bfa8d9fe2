// The CUDA kernel table: device memory, cuBLAS GEMMs (bf16 tensor cores, fp32 accumulate) and
// the fused kernels of this folder behind the KernelTable contract of kernels/kernels.hpp.
// cuda_kernels() hands it out only when a CUDA device answers; otherwise it returns nullptr
// and callers stay on the CPU table.
#include <string>

#include "cuda/activation.cuh"
#include "cuda/common.cuh"
#include "cuda/cross_entropy.cuh"
#include "cuda/device.hpp"
#include "cuda/embedding_dropout.cuh"
#include "cuda/gemm.cuh"
#include "cuda/layernorm.cuh"
#include "cuda/memory.cuh"
#include "cuda/optimizer.cuh"
#include "cuda/recurrent.cuh"
#include "cuda/softmax.cuh"
#include "kernels/gemm_grid.hpp"
#include "kernels/kernels.hpp"
#include "kernels/readback_free.hpp"

namespace attnlab {

namespace {

const KernelTable& cuda_table();

KernelTable make_cuda_table() {
  KernelTable t{};
  t.name = "cuda";
  t.alloc = cuda::alloc;
  t.release = cuda::release;
  t.zero = cuda::zero;
  t.upload = cuda::upload;
  t.download = cuda::download;
  t.copy = cuda::copy;
  t.synchronize = cuda::synchronize;
  t.gemm = cuda::gemm;
  t.gemm_batched = cuda::gemm_batched;
  t.softmax_forward = cuda::softmax_forward;
  t.softmax_backward = cuda::softmax_backward;
  t.layernorm_forward = cuda::layernorm_forward;
  t.layernorm_backward = cuda::layernorm_backward;
  t.bias_act_forward = cuda::bias_act_forward;
  t.bias_act_backward = cuda::bias_act_backward;
  t.cross_entropy = cuda::cross_entropy;
  t.adam = cuda::adam;
  t.axpy = cuda::axpy;
  t.scale = cuda::scale;
  t.sumsq = cuda::sumsq;
  t.embedding_forward = cuda::embedding_forward;
  t.embedding_backward = cuda::embedding_backward;
  t.dropout_forward = cuda::dropout_forward;
  t.dropout_backward = cuda::dropout_backward;
  t.tanh_bias_forward = cuda::tanh_bias_forward;
  t.tanh_bias_backward = cuda::tanh_bias_backward;
  t.gru_gates_forward = cuda::gru_gates_forward;
  t.gru_gates_backward = cuda::gru_gates_backward;
  t.gru_cell_forward = cuda::gru_cell_forward;
  t.gru_cell_backward = cuda::gru_cell_backward;
  t.lstm_cell_forward = cuda::lstm_cell_forward;
  t.lstm_cell_backward = cuda::lstm_cell_backward;
  t.additive_score_forward = cuda::additive_score_forward;
  t.additive_score_backward = cuda::additive_score_backward;
  t.probs_xent = cuda::probs_xent;
  t.deferred = false;
  readback_free_entries<cuda_table>(t);
  return t;
}

const KernelTable& cuda_table() {
  static const KernelTable table = make_cuda_table();
  return table;
}

// Why no device answered ("" when one did): cudaGetDeviceCount's error text, kept for the skip
// messages of the [cuda] tests and scripts/gpu-check.sh.
std::string& device_status_text() {
  static std::string text;
  return text;
}

bool device_present() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    device_status_text() = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " +
                           cudaGetErrorString(err);
    cudaGetLastError();  // clear "no driver"/"no device" so later checks start clean
    return false;
  }
  if (n == 0) device_status_text() = "cudaGetDeviceCount: 0 devices";
  return n > 0;
}

}  // namespace

const KernelTable* cuda_kernels() {
  static const bool present = device_present();
  if (!present) return nullptr;
  return &cuda_table();
}

// The table whose batched GEMM is cuBLAS's (the CUDA table, or a copy of it) has the grid; a
// copy that replaced gemm_batched (a wrapper counting calls, say) gets the loop over it.
GemmGridFn gemm_grid_entry(const KernelTable& kt) {
  return kt.gemm_batched == &cuda::gemm_batched ? &cuda::gemm_grid : nullptr;
}

namespace cuda {

const char* device_status() {
  cuda_kernels();
  return device_status_text().c_str();
}

}  // namespace cuda

}  // namespace attnlab
