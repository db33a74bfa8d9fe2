// Parameters and activations as named views into blocks allocated through a KernelTable.
// ParamArena: layers declare parameters (name, shape, init) while a model is built; allocate()
// then makes one value block and one gradient block (CPU heap or CUDA memory) and initialises
// values on the host. A parameter is an integer id; val(id)/grad(id) are pointers into the
// blocks. list() is the named-parameter list the optimizer, checkpoints and gradient checks use.
// Workspace: a bump allocator for activations and scratch, reset at the start of each forward.
// It lives with the layers (not in core/) because it allocates through the kernel table.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

enum class Init { Zeros, Ones, XavierUniform, Normal, Uniform };

struct ParamInfo {
  std::string name;
  std::vector<int> shape;
  size_t offset = 0;  // in floats, into the value and gradient blocks
  long numel = 0;
  Init init = Init::Zeros;
  float a = 0.f;  // Normal: std; Uniform: bound; XavierUniform: gain
};

class ParamArena {
 public:
  explicit ParamArena(const KernelTable& kt) : kt_(&kt) {}
  ~ParamArena();
  ParamArena(const ParamArena&) = delete;
  ParamArena& operator=(const ParamArena&) = delete;

  // Declares a parameter (before allocate()); names must be unique. Returns its id.
  int add(const std::string& name, std::vector<int> shape, Init init, float a = 1.f);
  // Allocates both blocks and fills the values from rng (declaration order, so seeded inits are
  // identical on every platform). Gradients start at zero.
  void allocate(Rng& rng);
  // Upper bound on a model's parameter count (floats), checked by allocate(): a config read
  // from a file can't ask for more memory than this. Default 2^30.
  static void set_limit(size_t floats);

  float* val(int id) const { return values_ + params_[size_t(id)].offset; }
  float* grad(int id) const { return grads_ + params_[size_t(id)].offset; }
  const ParamInfo& info(int id) const { return params_[size_t(id)]; }
  const std::vector<ParamInfo>& list() const { return params_; }
  int find(const std::string& name) const;  // -1 if absent

  float* values() const { return values_; }
  float* grads() const { return grads_; }
  long total() const { return long(total_); }
  void zero_grad() const;
  const KernelTable& kernels() const { return *kt_; }

 private:
  const KernelTable* kt_;
  std::vector<ParamInfo> params_;
  size_t total_ = 0;
  float* values_ = nullptr;
  float* grads_ = nullptr;
};

class Workspace {
 public:
  explicit Workspace(const KernelTable& kt) : kt_(&kt) {}
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Forgets every earlier buffer (their memory is reused); merges chunks into one block.
  void reset();
  // n floats (zero-filled is not promised), 16-float aligned, valid until the next reset().
  float* floats(size_t n);
  int32_t* ints(size_t n) { return reinterpret_cast<int32_t*>(floats(n)); }
  uint8_t* bytes(size_t n) { return reinterpret_cast<uint8_t*>(floats((n + 3) / 4)); }
  size_t capacity() const;

 private:
  struct Chunk {
    float* p;
    size_t cap, used;
  };
  const KernelTable* kt_;
  std::vector<Chunk> chunks_;
};

}  // namespace attnlab
