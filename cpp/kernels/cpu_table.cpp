// The CPU kernel table: host memory plus the SIMD kernels of kernels/cpu.hpp (the reference
// loops in kernels/reference.* stay as their readable definition and test oracle).
#include <cstdlib>
#include <cstring>

#include "core/check.hpp"
#include "kernels/cpu.hpp"
#include "kernels/gemm_grid.hpp"
#include "kernels/kernels.hpp"
#include "kernels/readback_free.hpp"
#include "kernels/recurrent.hpp"

namespace attnlab {

namespace {

void* host_alloc(size_t bytes) {
  void* p = std::calloc(bytes ? bytes : 1, 1);
  AL_CHECK(p, "out of memory allocating " << bytes << " bytes");
  return p;
}
void host_release(void* p) { std::free(p); }
void host_zero(void* p, size_t bytes) { std::memset(p, 0, bytes); }
void host_copy(void* dst, const void* src, size_t bytes) { std::memmove(dst, src, bytes); }
void host_sync() {}

const KernelTable& cpu_table();

KernelTable make_cpu_table() {
  namespace r = kernels::cpu;
  KernelTable t{};
  t.name = "cpu";
  t.alloc = host_alloc;
  t.release = host_release;
  t.zero = host_zero;
  t.upload = host_copy;
  t.download = host_copy;
  t.copy = host_copy;
  t.synchronize = host_sync;
  t.gemm = r::gemm;
  t.gemm_batched = r::gemm_batched;
  t.softmax_forward = r::softmax_forward;
  t.softmax_backward = r::softmax_backward;
  t.layernorm_forward = r::layernorm_forward;
  t.layernorm_backward = r::layernorm_backward;
  t.bias_act_forward = r::bias_act_forward;
  t.bias_act_backward = r::bias_act_backward;
  t.cross_entropy = r::cross_entropy;
  t.adam = r::adam;
  t.axpy = r::axpy;
  t.scale = r::scale;
  t.sumsq = r::sumsq;
  t.embedding_forward = r::embedding_forward;
  t.embedding_backward = r::embedding_backward;
  t.dropout_forward = r::dropout_forward;
  t.dropout_backward = r::dropout_backward;
  namespace rr = kernels::ref;  // recurrent-cell kernels: reference loops so far
  t.tanh_bias_forward = rr::tanh_bias_forward;
  t.tanh_bias_backward = rr::tanh_bias_backward;
  t.gru_gates_forward = rr::gru_gates_forward;
  t.gru_gates_backward = rr::gru_gates_backward;
  t.gru_cell_forward = rr::gru_cell_forward;
  t.gru_cell_backward = rr::gru_cell_backward;
  t.lstm_cell_forward = rr::lstm_cell_forward;
  t.lstm_cell_backward = rr::lstm_cell_backward;
  t.additive_score_forward = rr::additive_score_forward;
  t.additive_score_backward = rr::additive_score_backward;
  t.probs_xent = rr::probs_xent;
  t.deferred = false;
  readback_free_entries<cpu_table>(t);
  return t;
}

const KernelTable& cpu_table() {
  static const KernelTable table = make_cpu_table();
  return table;
}

}  // namespace

const KernelTable& cpu_kernels() { return cpu_table(); }

#ifndef ATTNLAB_WITH_CUDA
const KernelTable* cuda_kernels() { return nullptr; }
#ifndef __EMSCRIPTEN__  // there webgpu_table.cpp has the WebGPU table's
GemmGridFn gemm_grid_entry(const KernelTable&) { return nullptr; }
#endif
#endif

#ifndef __EMSCRIPTEN__
const KernelTable* webgpu_kernels() { return nullptr; }
#endif

}  // namespace attnlab
