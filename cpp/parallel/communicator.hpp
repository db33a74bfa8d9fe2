// The collectives data-parallel training needs, behind one interface with three backends:
// LocalCommunicator (a world of one: every collective is the identity), MpiCommunicator (CPU
// ranks, MPI_Allreduce / MPI_Iallreduce, mpi_communicator.hpp) and NcclCommunicator (GPU ranks,
// CUDA build only, nccl_communicator.hpp). Buffers live where device_memory() says: host memory
// for MPI, the current GPU's memory for NCCL. Every failure is an attnlab::Error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace attnlab {

struct WorldInfo;

enum class ReduceOp { Sum, Min, Max };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual const char* name() const = 0;  // "local", "mpi", "nccl"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // True when float buffers handed to allreduce/iallreduce/broadcast are device memory.
  virtual bool device_memory() const { return false; }

  // p[0..n) = sum over ranks of p[0..n), in place; returns when done.
  virtual void allreduce_sum(float* p, size_t n) = 0;
  // Starts the same sum without waiting; p must stay untouched until wait_all() returns.
  virtual void iallreduce_sum(float* p, size_t n) = 0;
  // Lets started reductions progress (MPI progresses only inside MPI calls); never blocks.
  virtual void progress() {}
  // Waits for every started reduction.
  virtual void wait_all() = 0;
  // bytes at p from rank `root` to every rank.
  virtual void broadcast(void* p, size_t bytes, int root) = 0;
  virtual void barrier() = 0;
  // Scalars on the host, whatever device_memory() says.
  virtual double allreduce_double(double x, ReduceOp op) = 0;
  virtual int64_t allreduce_int64(int64_t x, ReduceOp op) = 0;
};

// A world of one.
class LocalCommunicator : public Communicator {
 public:
  const char* name() const override { return "local"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(float*, size_t) override {}
  void iallreduce_sum(float*, size_t) override {}
  void wait_all() override {}
  void broadcast(void*, size_t, int root) override;
  void barrier() override {}
  double allreduce_double(double x, ReduceOp) override { return x; }
  int64_t allreduce_int64(int64_t x, ReduceOp) override { return x; }
};

// The communicator for this process's world: local for a world of one; MPI for CPU ranks
// (launcher Mpi); NCCL for GPU ranks (`cuda`, CUDA build with NCCL), its unique id broadcast
// over MPI or, without MPI, written by rank 0 to `nccl_id_file` and read there by the others.
std::unique_ptr<Communicator> make_communicator(const WorldInfo& world, bool cuda,
                                                const std::string& nccl_id_file = "");

}  // namespace attnlab
