// MPI collectives on a duplicate of MPI_COMM_WORLD with errors returned (see mpi_communicator.hpp).
#include "parallel/mpi_communicator.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/error.hpp"

#ifdef ATTNLAB_WITH_MPI
#include <mpi.h>
#endif

namespace attnlab {

#ifdef ATTNLAB_WITH_MPI

namespace {

// MPI counts are ints: longer buffers go in pieces of this many elements.
constexpr size_t kMaxCount = size_t(1) << 30;

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Min:
      return MPI_MIN;
    case ReduceOp::Max:
      return MPI_MAX;
    default:
      return MPI_SUM;
  }
}

// Waits for n requests by polling with short sleeps instead of MPI_Waitall, whose busy wait (Open
// MPI spins, yielding at most) takes a core from the other ranks and threads while this rank
// waits for a slower one on a machine with fewer free cores than ranks. 50 us is nothing beside
// a training step. Returns MPI_Testall's code.
int poll_wait(MPI_Request* r, int n) {
  for (;;) {
    int done = 0;
    const int rc = MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING + 1] = {0};
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw Error(std::string(what) + " failed on rank " + std::to_string(rank) + ": " +
              std::string(msg, size_t(len)) +
              " (another rank has probably died or lost its connection; the job stops)");
}

struct MpiCommunicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> pending;
};

MpiCommunicator::MpiCommunicator() : impl_(std::make_unique<Impl>()) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) throw Error("MpiCommunicator: MPI is not initialised (launch under mpirun)");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm), "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(impl_->comm, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(impl_->comm, &size_), "MPI_Comm_size");
}

MpiCommunicator::~MpiCommunicator() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  // Pending requests after an error are abandoned: freeing them could block on a dead peer.
  if (!finalised && impl_->pending.empty() && impl_->comm != MPI_COMM_NULL)
    MPI_Comm_free(&impl_->comm);
}

void MpiCommunicator::allreduce_sum(float* p, size_t n) {
  for (size_t i = 0; i < n; i += kMaxCount) {
    const int c = int(std::min(kMaxCount, n - i));
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, p + i, c, MPI_FLOAT, MPI_SUM, impl_->comm),
              "MPI_Allreduce");
  }
}

void MpiCommunicator::iallreduce_sum(float* p, size_t n) {
  for (size_t i = 0; i < n; i += kMaxCount) {
    const int c = int(std::min(kMaxCount, n - i));
    MPI_Request r;
    mpi_check(MPI_Iallreduce(MPI_IN_PLACE, p + i, c, MPI_FLOAT, MPI_SUM, impl_->comm, &r),
              "MPI_Iallreduce");
    impl_->pending.push_back(r);
  }
}

void MpiCommunicator::progress() {
  if (impl_->pending.empty()) return;
  int done = 0;
  mpi_check(
      MPI_Testall(int(impl_->pending.size()), impl_->pending.data(), &done, MPI_STATUSES_IGNORE),
      "MPI_Testall");
  if (done) impl_->pending.clear();
}

void MpiCommunicator::wait_all() {
  if (impl_->pending.empty()) return;
  const int rc = poll_wait(impl_->pending.data(), int(impl_->pending.size()));
  impl_->pending.clear();
  mpi_check(rc, "MPI_Testall");
}

void MpiCommunicator::broadcast(void* p, size_t bytes, int root) {
  char* c = static_cast<char*>(p);
  size_t i = 0;
  do {  // once even for 0 bytes, so every rank takes part and a bad root is reported
    const size_t n = std::min(kMaxCount, bytes - i);
    mpi_check(MPI_Bcast(c + i, int(n), MPI_BYTE, root, impl_->comm), "MPI_Bcast");
    i += n;
  } while (i < bytes);
}

void MpiCommunicator::barrier() { mpi_check(MPI_Barrier(impl_->comm), "MPI_Barrier"); }

// The scalar all-reduces are where a rank waits for the others between steps: polled too.
double MpiCommunicator::allreduce_double(double x, ReduceOp op) {
  MPI_Request r;
  mpi_check(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, mpi_op(op), impl_->comm, &r),
            "MPI_Iallreduce");
  mpi_check(poll_wait(&r, 1), "MPI_Testall");
  return x;
}

int64_t MpiCommunicator::allreduce_int64(int64_t x, ReduceOp op) {
  MPI_Request r;
  mpi_check(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT64_T, mpi_op(op), impl_->comm, &r),
            "MPI_Iallreduce");
  mpi_check(poll_wait(&r, 1), "MPI_Testall");
  return x;
}

#else  // no MPI in this build

void mpi_check(int, const char*) {}

struct MpiCommunicator::Impl {};

MpiCommunicator::MpiCommunicator() {
  throw Error("this build has no MPI (configured with ATTNLAB_MPI=OFF or without libopenmpi-dev)");
}
MpiCommunicator::~MpiCommunicator() = default;
void MpiCommunicator::allreduce_sum(float*, size_t) {}
void MpiCommunicator::iallreduce_sum(float*, size_t) {}
void MpiCommunicator::progress() {}
void MpiCommunicator::wait_all() {}
void MpiCommunicator::broadcast(void*, size_t, int) {}
void MpiCommunicator::barrier() {}
double MpiCommunicator::allreduce_double(double x, ReduceOp) { return x; }
int64_t MpiCommunicator::allreduce_int64(int64_t x, ReduceOp) { return x; }

#endif

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

}  // namespace attnlab
