// Task split logic, batching and the task registry.
#include "data/task.hpp"

#include <algorithm>
#include <utility>

#include "core/check.hpp"

namespace attnlab {

uint64_t source_hash(const std::vector<int32_t>& src) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : src) {
    h ^= uint64_t(uint32_t(t));
    h *= 1099511628211ull;
  }
  h ^= h >> 29;
  return h;
}

Example Task::sample(Rng& rng, Split split) const {
  for (int tries = 0; tries < 100000; ++tries) {
    Example e = draw(rng);
    const bool test = int(source_hash(e.src) % 100) < test_percent_;
    if (test == (split == Split::Test)) return e;
  }
  AL_CHECK(false, "task " << name() << " could not draw an example of the requested split");
  return {};
}

std::string Task::src_token(int id) const {
  static const char* special[] = {"<pad>", "<s>", "</s>"};
  return id >= 0 && id < kFirstSymbol ? special[id] : std::to_string(id - kFirstSymbol);
}

std::string Task::tgt_token(int id) const { return src_token(id); }

Batch Task::sample_batch(Rng& rng, Split split, int count, int first, int rows) const {
  std::vector<Example> ex = sample_many(*this, rng, split, count);
  if (rows < 0) rows = count;
  AL_CHECK(first >= 0 && first + rows <= count, "batch rows out of range");
  if (first != 0 || rows != count)
    ex = std::vector<Example>(ex.begin() + first, ex.begin() + first + rows);
  return make_batch(ex);
}

Batch Task::sample_sets(Rng&, Split, int, int) const {
  AL_CHECK(false, "task " << name() << " has token sources, not point sets");
  return {};
}

std::vector<int> Task::solve(const std::vector<float>&, int) const {
  AL_CHECK(false, "task " << name() << " has token sources, not point sets");
  return {};
}

Batch make_batch(const std::vector<Example>& ex, int dim) {
  Batch b;
  b.B = int(ex.size());
  b.dim = dim;
  for (const Example& e : ex) {
    b.S = std::max(b.S, dim > 0 ? int(e.x.size()) / dim : int(e.src.size()));
    b.T = std::max(b.T, int(e.tgt.size()) + 1);
  }
  if (dim > 0) {
    for (const Example& e : ex) {
      AL_CHECK(e.src.empty() && e.x.size() == size_t(b.S) * dim,
               "a point batch needs sets of one size with " << dim << " features per input");
      b.x.insert(b.x.end(), e.x.begin(), e.x.end());
    }
  }
  b.src.assign(dim > 0 ? 0 : size_t(b.B) * b.S, kPad);
  b.tgt_in.assign(size_t(b.B) * b.T, kPad);
  b.tgt_out.assign(size_t(b.B) * b.T, kPad);
  for (int r = 0; r < b.B; ++r) {
    const Example& e = ex[size_t(r)];
    if (dim == 0) std::copy(e.src.begin(), e.src.end(), b.src.begin() + long(r) * b.S);
    b.tgt_in[size_t(r) * b.T] = kBos;
    for (size_t t = 0; t < e.tgt.size(); ++t) {
      b.tgt_in[size_t(r) * b.T + t + 1] = e.tgt[t];
      b.tgt_out[size_t(r) * b.T + t] = e.tgt[t];
    }
    b.tgt_out[size_t(r) * b.T + e.tgt.size()] = kEos;
  }
  return b;
}

void drop_words(Batch& b, float p_src, float p_tgt, int32_t unk, Rng& rng) {
  AL_CHECK(p_src >= 0 && p_src < 1 && p_tgt >= 0 && p_tgt < 1,
           "word dropout must be in [0, 1), got " << p_src << " and " << p_tgt);
  if (p_src > 0)
    for (int32_t& id : b.src)
      if (id != kPad && rng.uniform() < p_src) id = unk;
  if (p_tgt > 0)
    for (int r = 0; r < b.B; ++r)
      for (int t = 1; t < b.T; ++t) {
        int32_t& id = b.tgt_in[size_t(r) * b.T + size_t(t)];
        if (id != kPad && rng.uniform() < p_tgt) id = unk;
      }
}

Rng word_dropout_rng(uint64_t seed, int step, int rank) {
  return Rng((seed * 0xC2B2AE3D27D4EB4Full ^ (uint64_t(step) * 0x165667B19E3779F9ull)) +
             uint64_t(rank) * 0x94D049BB133111EBull);
}

std::vector<Example> sample_many(const Task& task, Rng& rng, Split split, int n) {
  std::vector<Example> out;
  out.reserve(size_t(n));
  for (int i = 0; i < n; ++i) out.push_back(task.sample(rng, split));
  return out;
}

}  // namespace attnlab
