// The MPI backend of Communicator: CPU ranks launched by mpirun. It works on its own duplicate
// of MPI_COMM_WORLD with MPI_ERRORS_RETURN, so a failed call (a rank died, the network broke)
// becomes an attnlab::Error instead of MPI's default abort. A rank that dies is handled by the
// launcher: Open MPI 4.1's mpirun kills the survivors and exits 137 within about a second
// (tests/dist/mpi_test.sh checks it). Under `mpirun --enable-recovery` (no ULFM in Debian's
// build) the survivors stay blocked in the collective instead: don't launch training with it.
// Non-blocking sums use MPI_Iallreduce; Open MPI progresses them only inside MPI calls, hence
// progress() (MPI_Testall). Builds without MPI compile a stub whose constructor throws.
#pragma once
#include <memory>

#include "parallel/communicator.hpp"

namespace attnlab {

// rc != MPI_SUCCESS -> attnlab::Error naming the call, this rank and MPI's own message.
void mpi_check(int rc, const char* what);

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator();  // needs an initialised MPI (a World launched under mpirun)
  ~MpiCommunicator() override;
  const char* name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(float* p, size_t n) override;
  void iallreduce_sum(float* p, size_t n) override;
  void progress() override;
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

std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace attnlab
