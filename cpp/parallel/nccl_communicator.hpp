// The NCCL backend of Communicator: GPU ranks, one GPU per rank (the local rank's, or the one
// GPU a launcher's CUDA_VISIBLE_DEVICES leaves each rank: parallel/gpu_choice.hpp),
// float buffers in device memory. Collectives run on a side stream that first waits for the work
// already queued on the legacy default stream (where every kernel of the CUDA table runs); waits
// poll ncclCommGetAsyncError, so a broken peer becomes an attnlab::Error, not a hang in a wait.
// The unique id goes from rank 0 to the others over the bootstrap communicator (MPI, as llm.c
// does) or, without MPI (torchrun / srun setting RANK and WORLD_SIZE), through `id_file` on a
// filesystem every rank sees: rank 0 writes it atomically, the others poll for it (up to 120 s),
// and rank 0 removes it once every rank has joined. Compiled in the CUDA build when NCCL is found
// (ATTNLAB_WITH_NCCL); elsewhere the constructor throws.
#pragma once
#include <memory>
#include <string>

#include "parallel/communicator.hpp"

namespace attnlab {

bool built_with_nccl();

class NcclCommunicator : public Communicator {
 public:
  // Selects the rank's GPU (choose_gpu, before the first CUDA allocation of the process).
  NcclCommunicator(const WorldInfo& world, std::unique_ptr<Communicator> bootstrap,
                   const std::string& id_file);
  ~NcclCommunicator() override;
  const char* name() const override { return "nccl"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool device_memory() const override { return true; }
  void allreduce_sum(float* p, size_t n) override;
  void iallreduce_sum(float* p, size_t n) override;
  void wait_all() override;
  void broadcast(void* p, size_t bytes, int root) override;
  void barrier() override;
  double allreduce_double(double x, ReduceOp op) override;
  int64_t allreduce_int64(int64_t x, ReduceOp op) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1;
};

std::unique_ptr<Communicator> make_nccl_communicator(const WorldInfo& world,
                                                     std::unique_ptr<Communicator> bootstrap,
                                                     const std::string& id_file);

}  // namespace attnlab
