// Device memory: cudaMalloc/cudaMemset/cudaMemcpy behind the kernel table's memory entries.
#include <cstdio>

#include "cuda/common.cuh"
#include "cuda/memory.cuh"

namespace attnlab::cuda {

void* alloc(size_t bytes) {
  void* p = nullptr;
  AL_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  AL_CUDA_CHECK(cudaMemset(p, 0, bytes ? bytes : 1));
  return p;
}

// Called from destructors (DevBuf, Buffer, ParamArena, Adam): a failed free is reported on
// stderr and cleared, never thrown, so one device fault does not end the process at the next
// scope exit (its own call still throws where it happened).
void release(void* p) noexcept {
  if (!p) return;
  const cudaError_t err = cudaFree(p);
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "attnlab: cudaFree(%p) failed: %s (%s); going on\n", p,
               cudaGetErrorName(err), cudaGetErrorString(err));
  cudaGetLastError();  // a non-sticky error must not be read as the next launch's
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
