// A small persistent thread pool for the CPU kernels. parallel_for(n, fn) splits [0, n) into
// num_threads() contiguous chunks (chunk t always goes to worker t, so a kernel that writes each
// output from one chunk is deterministic for a given thread count) and blocks until all are done.
// Single-threaded WebAssembly (no __EMSCRIPTEN_PTHREADS__) runs every chunk on the caller.
// threads.cpp also defines set_num_threads()/num_threads() of kernels.hpp.
#pragma once
#include <functional>

namespace attnlab::threads {

// fn(begin, end, chunk) for each of `chunks` contiguous pieces of [0, n); chunks <= threads.
void parallel_for(long n, int chunks, const std::function<void(long, long, int)>& fn);

// How many chunks a kernel should use for `work` units of work (1 below `grain` per chunk).
int chunks_for(double work, double grain);

}  // namespace attnlab::threads
