// attn's data-parallel job. main creates the process's World (parallel/world.hpp: mpirun, or RANK /
// WORLD_SIZE for GPU ranks, or a single process) before any command runs; a training command
// makes one DataParallelRun, which builds the communicator and the bucketed gradient sync and
// hands the trainer a DataParallel (train/grad_sync.hpp). In a world of one the sync is null and
// every trainer takes the single-process step, so a run without a launcher is the run it was
// before this file. Rank 0 alone writes checkpoints, logs and evaluates (root()).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/world.hpp"
#include "train/grad_sync.hpp"

namespace attnlab::cli {

void set_world(World* w);  // main, once
const World* world();      // null when no World was made (a world of one)

class DataParallelRun {
 public:
  // Reads --nccl-id-file (GPU ranks without MPI). cuda: GPU ranks through NCCL, which selects
  // the local rank's GPU, so construct this before the model is put on a GPU.
  DataParallelRun(Args& a, bool cuda);
  ~DataParallelRun();

  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  bool root() const { return rank() == 0; }
  const char* backend() const { return comm_->name(); }
  DataParallel dp() const { return {rank(), size(), size() > 1 ? sync_.get() : nullptr}; }
  // The target tokens of the last step over all ranks (`local` in a world of one).
  long global_tokens(long local) const { return size() > 1 ? long(sync_->global_tokens()) : local; }

  // Every rank was launched with the same options and holds the same parameters (the same seed
  // or the same checkpoint): otherwise the same clear attnlab::Error on every rank.
  void check_same(const nlohmann::json& options, const ParamArena& P);
  // True on every rank when `flag` is true on any (SIGINT seen by one rank stops all at the
  // same step); no communication in a world of one.
  bool any(bool flag);

 private:
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<BucketedGradientSync> sync_;
};

}  // namespace attnlab::cli
