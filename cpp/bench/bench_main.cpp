// attnlab_bench: native kernel benchmarks printed as one JSON object on stdout (read by
// bench/bench.mjs). Usage:
//   attnlab_bench peak [seconds]
//   attnlab_bench gemm M N K transA transB batch threads [seconds]
//   attnlab_bench attention B H T S D causal threads [seconds]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench/bench.hpp"
#include "kernels/kernels.hpp"

namespace {

int arg(char** argv, int i) { return std::atoi(argv[i]); }
double seconds(int argc, char** argv, int i) { return argc > i ? std::atof(argv[i]) : 0.3; }

int usage() {
  std::fprintf(stderr,
               "usage: attnlab_bench peak [seconds]\n"
               "       attnlab_bench gemm M N K transA transB batch threads [seconds]\n"
               "       attnlab_bench attention B H T S D causal threads [seconds]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string what = argv[1];
  try {
    if (what == "peak") {
      attnlab::set_num_threads(1);
      const auto p = attnlab::api::bench_simd_peak_sweep(seconds(argc, argv, 2));
      std::printf(
          "{\"peak_gflops\": %.3f, \"chains\": %d, \"mul_add_gflops\": %.3f, \"mul_add_chains\": "
          "%d, "
          "\"fma_gflops\": %.3f, \"fma_chains\": %d, \"tile_gflops\": %.3f, \"threads\": 1}\n",
          p.gflops, p.chains, p.mul_add_gflops, p.mul_add_chains, p.fma_gflops, p.fma_chains,
          p.tile_gflops);
    } else if (what == "gemm" && argc >= 9) {
      attnlab::set_num_threads(arg(argv, 8));
      const double g =
          attnlab::api::bench_gemm(arg(argv, 2), arg(argv, 3), arg(argv, 4), arg(argv, 5),
                                   arg(argv, 6), arg(argv, 7), seconds(argc, argv, 9));
      std::printf("{\"gflops\": %.3f, \"threads\": %d}\n", g, attnlab::num_threads());
    } else if (what == "attention" && argc >= 9) {
      attnlab::set_num_threads(arg(argv, 8));
      const double ms =
          attnlab::api::bench_attention(arg(argv, 2), arg(argv, 3), arg(argv, 4), arg(argv, 5),
                                        arg(argv, 6), arg(argv, 7), seconds(argc, argv, 9));
      std::printf("{\"ms\": %.4f, \"threads\": %d}\n", ms, attnlab::num_threads());
    } else {
      return usage();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
