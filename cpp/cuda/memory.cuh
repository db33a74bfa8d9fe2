// Device memory for the CUDA kernel table: zero-filled allocation, release, copies between host
// and device (synchronous, so host buffers may be reused at once) and device synchronisation.
#pragma once
#include <cstddef>

namespace attnlab::cuda {

void* alloc(size_t bytes);       // zero-filled device memory
void release(void* p) noexcept;  // a failed free is logged to stderr, never thrown
void zero(void* p, size_t bytes);
void upload(void* dst, const void* host_src, size_t bytes);
void download(void* host_dst, const void* src, size_t bytes);
void copy(void* dst, const void* src, size_t bytes);  // device to device, regions disjoint
void synchronize();

}  // namespace attnlab::cuda
