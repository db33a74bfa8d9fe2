// What every Transformer layer's forward and backward receive: the kernel table, the parameter
// arena, the activation workspace, and the training switches (dropout on/off and its generator).
//
// Gradient convention, for every layer in this folder: parameter gradients accumulate (+=); a
// layer's backward accumulates (+=) its input gradients into the buffers its caller passes, so a
// caller zeroes a buffer (zeroed() below) unless it is summing several consumers' gradients.
// (Linear's and linear_backward's dx_beta = 0 is the one opt-out, for a caller that hands over
// fresh scratch and would otherwise zero it first.)
// A backward may use the gradient on its own output as scratch when its header says so. Three
// kinds of function are not layers and say in their headers that they assign instead:
// - the single-step building blocks of a recurrence (gru_/lstm_step_backward,
//   gru_/lstm_input_backward, context_backward's dalpha): backprop through time overwrites the
//   gradient it carries from step to step (the carry is read and rewritten in one call);
// - in-place elementwise ops (dropout_backward) and the loss, which produces the first gradient.
//
// Two layer idioms, on purpose:
// - Transformer layers (linear, ffn, layernorm, attention, residual, blocks) are batch-major,
//   x [B,T,C]: every position is computed at once, so a projection is one GEMM over R = B*T rows.
//   They hold parameter ids, read values and gradients through Ctx::P, and keep caches and
//   scratch in Ctx::ws (reset at the start of each forward).
// - Recurrent layers (gru, lstm, bigru, recurrent_attention, process_block) are time-major,
//   x [T,B,C]: the recurrence walks the time steps, and time-major makes step t's slice [B,C]
//   one contiguous block that the step's GEMMs read and write in place. The models drive them a
//   step at a time (decoders interleave attention and output layers, greedy decoding runs one
//   step per token), so they are per-step functions over raw parameter views (XParams, from
//   XIds::val/grad or carved from any buffer) and sequence objects (XSeq) that take only a
//   KernelTable and own their caches in a Buffer.
// Legend: B batch, S source length, T target length, C model width, H heads, hs head size,
// F feed-forward width, V vocabulary, R rows (B*T or B*S).
#pragma once
#include <cstddef>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"
#include "layers/arena.hpp"

namespace attnlab {

struct Ctx {
  const KernelTable& kt;
  ParamArena& P;
  Workspace& ws;
  bool train = false;
  Rng* rng = nullptr;  // dropout masks; required when train && p > 0
};

// n zero floats in the workspace: a buffer for a backward to accumulate an input gradient into.
inline float* zeroed(const Ctx& c, size_t n) {
  float* p = c.ws.floats(n);
  c.kt.zero(p, n * sizeof(float));
  return p;
}

}  // namespace attnlab
