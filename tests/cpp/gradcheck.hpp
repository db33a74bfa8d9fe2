// Central finite differences against analytic gradients, shared by the [grad] tests.
// check_grad perturbs `count` entries of x (spread over the buffer) by ±kFdStep, evaluates the
// scalar loss f() in double, and compares (f+ - f-) / 2h with the analytic gradient g.
// check_model_grads does it for every parameter of a model after one analytic backward pass.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

#include "layers/arena.hpp"
#include "models/model.hpp"
#include "tolerances.hpp"

namespace attnlab::test {

inline void check_grad(const std::string& what, float* x, const float* g, long n,
                       const std::function<double()>& f, int count = 12, double abs_tol = kFdAbs,
                       double step_h = kFdStep) {
  const long step = n > count ? n / count : 1;
  for (long i = 0; i < n; i += step) {
    const float saved = x[i];
    x[i] = float(saved + step_h);
    const double fp = f();
    x[i] = float(saved - step_h);
    const double fm = f();
    x[i] = saved;
    const double h = double(float(saved + step_h)) - double(float(saved - step_h));
    const double num = (fp - fm) / h;
    INFO(what << "[" << i << "] analytic " << g[i] << " numeric " << num);
    CHECK(std::fabs(num - g[i]) <= abs_tol + kFdRel * std::fabs(num));
  }
}

// Zeroes the model's gradients, runs loss() and model.backward() once, then checks `count`
// entries of every parameter tensor against central differences of loss().
inline void check_model_grads(Model& model, const std::function<double()>& loss, int count) {
  ParamArena& P = model.params();
  P.zero_grad();
  loss();
  model.backward();
  for (const ParamInfo& p : P.list()) {
    const int id = P.find(p.name);
    check_grad(p.name, P.val(id), P.grad(id), p.numel, loss, count);
  }
}

}  // namespace attnlab::test
