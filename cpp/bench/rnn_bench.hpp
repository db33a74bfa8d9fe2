// Training-step timings of the recurrent models, for the benchmark table:
//   RNNsearch: hidden 64, source and target length 20, batch 32 (forward + backward + Adam)
//   Ptr-Net:   hidden 128, n = 10 points, batch 128, with the glimpse off
// Each row is the median over `reps` steps after one warm-up step.
#pragma once
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnlab {

struct RnnBenchRow {
  std::string name;
  double ms_per_step = 0;
  int reps = 0;
};

std::vector<RnnBenchRow> rnn_bench(const KernelTable& kt, int reps);

}  // namespace attnlab
