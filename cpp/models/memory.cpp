// Size estimates and the memory budget (see memory.hpp).
#include "models/memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/check.hpp"

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

}  // namespace attnlab
