// Adam (Kingma & Ba 2015) with the paper's settings β1 0.9, β2 0.98, ε 1e-9 (§5.3) over a
// whole ParamArena through KernelTable::adam, or SGD with momentum (kind "sgd": the velocity
// u = μ u + g, then p -= lr (u + wd p), through the table's scale and axpy); learning-rate
// schedules; gradient-norm clipping.
//   noam:     lr(step) = factor · C^-0.5 · min(step^-0.5, step · warmup^-1.5)   (eq. 3)
//   constant: lr(step) = lr
#pragma once
#include <string>

#include "layers/arena.hpp"

namespace attnlab {

struct AdamOptions {
  float beta1 = 0.9f, beta2 = 0.98f, eps = 1e-9f, weight_decay = 0.f;
  std::string kind = "adam";  // "adam" | "sgd" (SGD with momentum)
  float momentum = 0.9f;      // sgd: μ in [0, 1)
  // Throws attnlab::Error for an unknown kind or a momentum outside [0, 1).
  void validate() const;
};

class Adam {
 public:
  // moments = false: an Adam that never steps and holds no moment buffers (a data-parallel
  // replica that views rank 0's weights, which rank 0's Adam updates); its step() and
  // step_guarded() throw attnlab::Error, and its moment pointers are null.
  Adam(ParamArena& P, AdamOptions o = {}, bool moments = true);
  ~Adam();
  Adam(const Adam&) = delete;
  Adam& operator=(const Adam&) = delete;
  void step(float lr);  // one update from the current gradients
  // One update of parameters [first, last) alone (the rest untouched), counted as a step: the
  // sharded update of thread ranks (train/step.hpp), where every rank updates its own range of
  // the shared weights with the moments of rank 0's optimizer. step(lr) is step_range(lr, 0, n).
  void step_range(float lr, long first, long last);
  // The readback-free step's update (KernelTable::adam_guarded): the gradients scaled by
  // state[1], nothing when state[0] != 0 (backend floats written by step_guard). Adam only:
  // SGD throws attnlab::Error (its update reads the guard's state on the host).
  void step_guarded(float lr, const float* state);
  int steps() const { return t_; }
  const AdamOptions& options() const { return o_; }
  // The moment buffers [total] and step count, for checkpoints that resume exactly (SGD: the
  // velocity is the first buffer; the second stays zero). Null without moments.
  float* first_moments() const { return m_; }
  float* second_moments() const { return v_; }
  // Whether this optimizer owns its moment buffers (a replica that views another's does not:
  // checkpoints save and restore the owner's).
  bool holds_moments() const { return m_ != nullptr && owns_; }
  // A replica (built without moments) steps with `owner`'s moment buffers from now on: the
  // thread ranks' replicas of one model, each updating its own range (step_range). Both must be
  // over arenas of the same size whose values are shared; the owner must outlive this one.
  void view_moments_of(const Adam& owner);
  void set_steps(int t) { t_ = t; }

 private:
  ParamArena& P_;
  AdamOptions o_;
  float* m_ = nullptr;  // [total] first moments
  float* v_ = nullptr;  // [total] second moments
  bool owns_ = true;    // false: m_ and v_ are another optimizer's (view_moments_of)
  int t_ = 0;
};

// The learning rate per step. noam: factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
// (Vaswani et al. 2017); constant: lr, and with lr_final > 0 and decay_from < decay_to (the
// pointer network's schedule) lr until step decay_from, then exponential decay to lr_final at
// step decay_to, held after it.
struct Schedule {
  std::string kind = "noam";  // "noam" | "constant"
  float lr = 1e-3f;           // constant rate
  float factor = 1.f;         // noam scale
  int warmup = 4000;
  int d_model = 512;
  float lr_final = 0.f;  // constant: the decay's end rate (<= 0: no decay)
  int decay_from = 1, decay_to = 0;
  float at(int step) const;  // step counts from 1 (validates first)
  // Throws attnlab::Error for an unknown kind, a rate or factor that is not a positive finite
  // number, a warmup below 1.
  void validate() const;
};

// Throws attnlab::Error ("training step N: the loss is not finite ...") when a step's loss or
// gradient norm is NaN or infinite. Trainers call it after backward and before the optimizer,
// so the weights stay those of the last finite step.
void check_step_finite(int step, double loss, float grad_norm, float lr);

// Scales all gradients so their global L2 norm is at most max_norm (no-op when max_norm <= 0).
// Returns the norm before clipping.
float clip_grad_norm(ParamArena& P, float max_norm);

}  // namespace attnlab
