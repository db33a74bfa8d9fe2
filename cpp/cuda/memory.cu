// Device memory: cudaMalloc/cudaMemset/cudaMemcpy behind the kernel table's memory entries.
#include "cuda/common.cuh"
#include "cuda/memory.cuh"

namespace attnlab::cuda {

void* alloc(size_t bytes) {
  void* p = nullptr;
  AL_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  AL_CUDA_CHECK(cudaMemset(p, 0, bytes ? bytes : 1));
  return p;
}

void release(void* p) {
  if (p) AL_CUDA_CHECK(cudaFree(p));
}

void zero(void* p, size_t bytes) { AL_CUDA_CHECK(cudaMemset(p, 0, bytes)); }

void upload(void* dst, const void* host_src, size_t bytes) {
  AL_CUDA_CHECK(cudaMemcpy(dst, host_src, bytes, cudaMemcpyHostToDevice));
}

void download(void* host_dst, const void* src, size_t bytes) {
  AL_CUDA_CHECK(cudaMemcpy(host_dst, src, bytes, cudaMemcpyDeviceToHost));
}

void copy(void* dst, const void* src, size_t bytes) {
  if (bytes) AL_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}

void synchronize() { AL_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace attnlab::cuda
