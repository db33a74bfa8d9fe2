// Parameters and activations as named views into blocks allocated through a KernelTable.
// ParamArena: layers declare parameters (name, shape, init) while a model is built; allocate()
// then makes one value block and one gradient block (CPU heap or CUDA memory) and initialises
// values on the host. A parameter is an integer id; val(id)/grad(id) are pointers into the
// blocks. list() is the named-parameter list the optimizer, checkpoints and gradient checks use.
// A model's backward may report, through grads_ready(), parameters whose gradients are final
// for this step; a data-parallel step listens (set_grads_ready) to start their all-reduce early.
// Workspace: a bump allocator for activations and scratch, reset at the start of each forward.
// It lives with the layers (not in core/) because it allocates through the kernel table.
#pragma once
#include <cstddef>
#include <functional>
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
  // A replica's view of another arena's values (data-parallel thread ranks, one copy of the
  // weights): after allocate(), frees this arena's value block and reads `master`'s instead,
  // which must have the same layout and outlive this one. Gradients stay this arena's own.
  void share_values(const ParamArena& master);
  bool shares_values() const { return !owns_values_; }
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
  int count() const { return int(params_.size()); }

  // Gradient floats [offset, offset + n) are final for this step. Set by whoever runs the step
  // (an empty function: nobody listens, the default).
  using GradsReady = std::function<void(size_t offset, size_t n)>;
  void set_grads_ready(GradsReady f) { grads_ready_ = std::move(f); }
  // Called by a model's backward: the gradients of parameters [first, last) (ids, which are
  // declaration order and arena order) are final. Reports their floats with the alignment padding
  // after each, so the reports of every parameter cover [0, total()) once.
  void grads_ready(int first, int last) const;

  // A readback-free step (train/step.hpp) points this at the backend float that receives the
  // step's mean loss: the loss layers then reduce on the backend (KernelTable::sum_to) and hand
  // back NaN instead of reading the per-row losses. nullptr (the default): the host reads them.
  void set_loss_slot(float* at) { loss_slot_ = at; }
  float* loss_slot() const { return loss_slot_; }

 private:
  float* loss_slot_ = nullptr;
  const KernelTable* kt_;
  std::vector<ParamInfo> params_;
  size_t total_ = 0;
  float* values_ = nullptr;
  float* grads_ = nullptr;
  bool owns_values_ = true;
  GradsReady grads_ready_;
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
