// Size estimates and the memory budget (see memory.hpp); call costs and their bound (cost.hpp).
#include "models/memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/check.hpp"
#include "models/cost.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <malloc.h>
#else
#include <unistd.h>
#endif

namespace attnlab {

SizeEstimate estimate_size(const nlohmann::json& m, int B, int S, int T) {
  return estimate_model(m, B, S, T);
}

double memory_budget() {
#ifdef __EMSCRIPTEN__
  const struct mallinfo mi = mallinfo();
  return double(emscripten_get_heap_max()) - double(mi.uordblks);
#else
  if (const char* s = std::getenv("ATTNLAB_MAX_BYTES")) return std::atof(s);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 64.0 * (1ull << 30);
#endif
}

std::string megabytes(double bytes) {
  const double mb = bytes / (1024.0 * 1024.0);
  return std::to_string(static_cast<long long>(mb > 0 ? (mb < 9e15 ? mb : 9e15) : 0)) + " MB";
}

void check_fits(const SizeEstimate& e, const char* what) {
  const double budget = memory_budget();
  AL_CHECK(e.total() <= budget,
           what << " needs about " << megabytes(e.total()) << " ("
                << static_cast<long long>(std::min(e.params, 9e15)) << " parameters, "
                << megabytes(e.activation_bytes) << " of activations per batch), more than the "
                << megabytes(budget)
                << " this engine can still allocate: make it smaller or lower the batch size");
}

void check_alloc(double bytes, const char* what) {
  const double budget = memory_budget();
  AL_CHECK(bytes <= budget, what << " need " << megabytes(bytes) << ", more than the "
                                 << megabytes(budget) << " this engine can still allocate");
}

// Call costs (cost.hpp).

// The bound. Its purpose is to refuse what no reader could wait for (a crafted checkpoint that
// holds the engine's Worker, and every demo with it, for many minutes or hours), never a call the
// guide makes. A bound of about 30 s on a slow phone-class core would refuse the guide itself:
// its heaviest call, the playground measuring the shipped pointer-hull checkpoint (200 point sets
// of each size from 5 to 20, 128 units), is about 7e11 units with the pointer network's factor,
// and a slow phone core runs the WebAssembly engine's large GEMM at the order of 1e9
// multiply-adds per second. So that call sets the bound, more than five times above it
// (test_work_cost.cpp asserts at least four): a few minutes of work on a desktop core (the order
// of 1e10 GEMM multiply-adds per second in WebAssembly), longer on a phone. A pointer checkpoint
// of 1,000-point sets measured on 200 sets per size is about a hundred times over, a decoding of
// a few hundred long rows with beam 64 on the translator's model a few times.
const double kMaxCallCost = 4e12;

namespace {

// Sum of step(R, S, t) over t = 0..L-1: a step is at most quadratic in t, so its value at three
// points fixes it (Newton's forward differences; the sum of C(t, k) over t < L is C(L, k + 1)).
double sum_steps(const KindWork& w, const nlohmann::json& m, double R, double S, int L) {
  if (L <= 0) return 0;
  const double q0 = w.step(m, R, S, 0), q1 = w.step(m, R, S, 1), q2 = w.step(m, R, S, 2);
  const double d1 = q1 - q0, d2 = q2 - 2 * q1 + q0, n = L;
  return n * q0 + d1 * n * (n - 1) / 2 + d2 * n * (n - 1) * (n - 2) / 6;
}

// Multiply-adds of a greedy decoding of R rows (one batch) or of a beam search per source.
double decode_macs(const KindWork& w, const nlohmann::json& m, double R, double S, int beam,
                   int L) {
  if (beam <= 1) return w.encode(m, R, S) + sum_steps(w, m, R, S, L);
  return R * (w.encode(m, 1, S) + sum_steps(w, m, beam, S, L));
}

}  // namespace

double train_step_cost(const nlohmann::json& model, double B, double S, double T) {
  const KindWork& w = kind_work(model);
  // backward: about twice the forward pass; Adam: a few operations per parameter
  const double params = estimate_model(model, 1, 1, 1).params;
  return (3 * w.forward(model, B, S, T) + 4 * params) * w.factor;
}

double decode_cost(const nlohmann::json& model, double R, double S, int beam, int L) {
  const KindWork& w = kind_work(model);
  return decode_macs(w, model, R, S, beam, L) * w.factor;
}

double evaluate_cost(const nlohmann::json& model, double samples, double S, double T) {
  const KindWork& w = kind_work(model);
  return (w.forward(model, samples, S, T) + decode_macs(w, model, samples, S, 1, int(T))) *
         w.factor;
}

double evaluate_points_cost(const nlohmann::json& model, double samples, int n_min, int n_max) {
  const KindWork& w = kind_work(model);
  double macs = 0;
  for (int n = std::max(1, n_min); n <= n_max; ++n)  // n decoder steps and the end symbol
    macs += w.forward(model, samples, n, n + 1) + decode_macs(w, model, samples, n, 1, n + 1);
  return macs * w.factor;
}

double forward_cost(const nlohmann::json& model, double B, double S, double T) {
  const KindWork& w = kind_work(model);
  return w.forward(model, B, S, T) * w.factor;
}

std::string work_units(double cost) {
  char buf[32];
  if (!(cost >= 0)) cost = 0;
  if (cost > 9.9e99) cost = 9.9e99;
  const int e = cost < 1 ? 0 : int(std::floor(std::log10(cost)));
  double m = cost / std::pow(10.0, e);
  int ee = e;
  if (std::round(m * 10) / 10 >= 10) m /= 10, ++ee;  // 9.96 -> 1.0e(e+1)
  std::snprintf(buf, sizeof buf, "%.1fe%d", m, ee);
  return buf;
}

void check_cost(double cost, const std::string& call, const std::string& advice) {
  if (cost <= kMaxCallCost) return;  // NaN: refused as well
  const double times = cost / kMaxCallCost;
  char t[32];
  if (times < 1e6)
    std::snprintf(t, sizeof t, times < 10 ? "%.1f" : "%.0f", times);
  else
    std::snprintf(t, sizeof t, "%s", work_units(times).c_str());
  AL_CHECK(false, call << ": this call would take about " << work_units(cost)
                       << " units of work (multiply-adds, weighted for this kind of model), " << t
                       << " times the " << work_units(kMaxCallCost) << " one call may do; "
                       << advice);
}

}  // namespace attnlab
