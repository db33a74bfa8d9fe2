// Residual connection with layer normalisation around one sublayer (Vaswani et al. 2017, §5.4):
//   post-LN (the paper):  y = LN(x + Dropout(Sublayer(x)))
//   pre-LN (norm_first):  y = x + Dropout(Sublayer(LN(x)))
// Used in two halves around the sublayer call: `in = r.enter(x)`, run the sublayer on `in`
// into `cache.sub`, then `y = r.leave()`. Backward mirrors it: `dsub = r.back_enter(dy)`, the
// sublayer accumulates its input gradient into `cache.din`, then `r.back_leave(dx)` adds the
// block's input gradient to the caller's dx.
#pragma once
#include <string>

#include "layers/dropout.hpp"
#include "layers/layernorm.hpp"

namespace attnlab {

struct ResidualCache {
  const float* x = nullptr;  // [R,C] block input
  float* in = nullptr;       // [R,C] sublayer input (LN(x) pre-LN, x post-LN)
  float* sub = nullptr;      // [R,C] sublayer output, dropout applied in place
  float* r = nullptr;        // [R,C] post-LN: x + sub (LN input)
  float* y = nullptr;        // [R,C] block output
  DropoutCache drop;
  LayerNormCache ln;
  // backward
  float* dsub = nullptr;  // [R,C]
  float* din = nullptr;   // [R,C] sublayer input gradient (accumulated by the sublayer)
  float* dr = nullptr;    // [R,C] post-LN: gradient on x + sub (LN input)
  const float* dy = nullptr;
};

struct Residual {
  LayerNorm norm;
  bool norm_first = false;
  float p_drop = 0.f;
  int C = 0;
  void declare(ParamArena& P, const std::string& norm_name, int C_, bool norm_first_,
               float dropout);
  const float* enter(const Ctx& c, ResidualCache& m, const float* x, int R) const;
  float* leave(const Ctx& c, ResidualCache& m, int R) const;
  // Returns dsub, the gradient on the sublayer output; the sublayer then adds its input
  // gradient to m.din (prepared here), and back_leave() adds the block's input gradient to dx.
  const float* back_enter(const Ctx& c, ResidualCache& m, const float* dy, int R) const;
  void back_leave(const Ctx& c, ResidualCache& m, float* dx, int R) const;
  // back_leave into a zeroed buffer, without the zeroing: the block's input gradient, in m.dr
  // (post-LN) or in a new buffer (pre-LN, dy + LN'(din) in one kernel where the table fuses).
  float* back_out(const Ctx& c, ResidualCache& m, int R) const;
};

}  // namespace attnlab
