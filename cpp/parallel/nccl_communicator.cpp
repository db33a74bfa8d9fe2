// NCCL collectives on a side stream, the unique id shared over MPI or a file (see
// nccl_communicator.hpp). Everything CUDA-specific is inside ATTNLAB_WITH_NCCL.
#include "parallel/nccl_communicator.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "attnlab/error.hpp"
#include "parallel/gpu_choice.hpp"
#include "parallel/world.hpp"

#ifdef ATTNLAB_WITH_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>
#endif

namespace attnlab {

int choose_gpu(int local_rank, int local_size, int visible, const char* cuda_visible_devices) {
  const std::string env = cuda_visible_devices
                              ? std::string(" (CUDA_VISIBLE_DEVICES=") + cuda_visible_devices + ")"
                              : std::string(" (CUDA_VISIBLE_DEVICES unset)");
  if (local_rank < 0 || local_size < 1 || local_rank >= local_size)
    throw Error("local rank " + std::to_string(local_rank) + " of " + std::to_string(local_size) +
                " ranks on this host is not a rank");
  if (visible < 1)
    throw Error("local rank " + std::to_string(local_rank) + " sees no CUDA device" + env);
  if (local_rank < visible && visible >= local_size) return local_rank;
  if (cuda_visible_devices && *cuda_visible_devices) return 0;
  throw Error("local rank " + std::to_string(local_rank) + " of " + std::to_string(local_size) +
              " takes a GPU of its own, but this host shows " + std::to_string(visible) +
              " GPU(s)" + env +
              ": launch at most one rank per GPU, or let the launcher set CUDA_VISIBLE_DEVICES "
              "per rank");
}

#ifdef ATTNLAB_WITH_NCCL

bool built_with_nccl() { return true; }

namespace {

constexpr int kIdFileWaitSeconds = 120;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess && r != ncclInProgress)
    throw Error(std::string(what) + " failed: " + ncclGetErrorString(r) +
                " (another rank has probably died or lost its connection; the job stops)");
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Min:
      return ncclMin;
    case ReduceOp::Max:
      return ncclMax;
    default:
      return ncclSum;
  }
}

// Rank 0 writes the id to path (through a temporary file and a rename, so a reader never sees
// half of it); the other ranks wait for the file and read it.
void share_id_through_file(ncclUniqueId& id, int rank, const std::string& path) {
  if (rank == 0) {
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(&id), sizeof id);
      if (!f) throw Error("--nccl-id-file: cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error("--nccl-id-file: cannot rename " + tmp + " to " + path);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kIdFileWaitSeconds);
  for (;;) {
    std::ifstream f(path, std::ios::binary);
    if (f && f.read(reinterpret_cast<char*>(&id), sizeof id) && f.gcount() == sizeof id) return;
    if (std::chrono::steady_clock::now() > until)
      throw Error("--nccl-id-file: rank " + std::to_string(rank) + " waited " +
                  std::to_string(kIdFileWaitSeconds) + " s for rank 0 to write " + path +
                  " (is it on a filesystem every rank sees?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

struct NcclCommunicator::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t side = nullptr;
  cudaEvent_t ready = nullptr, done = nullptr;
  void* scratch = nullptr;  // 8 bytes of device memory for scalars
  bool pending = false, broken = false;
  std::unique_ptr<Communicator> bootstrap;

  // Also runs when the constructor throws half-way.
  ~Impl() {
    if (comm) {
      if (pending || broken)
        ncclCommAbort(comm);
      else
        ncclCommDestroy(comm);
    }
    if (scratch) cudaFree(scratch);
    if (ready) cudaEventDestroy(ready);
    if (done) cudaEventDestroy(done);
    if (side) cudaStreamDestroy(side);
  }

  // One scalar through the scratch buffer: upload, all-reduce on the side stream, download.
  template <typename T>
  T allreduce_scalar(T x, ncclDataType_t type, ReduceOp op) {
    cuda_check(cudaMemcpy(scratch, &x, sizeof x, cudaMemcpyHostToDevice), "cudaMemcpy");
    after_compute();
    nccl_check(ncclAllReduce(scratch, scratch, 1, type, nccl_op(op), comm, side), "ncclAllReduce");
    wait();
    cuda_check(cudaMemcpy(&x, scratch, sizeof x, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return x;
  }

  // The side stream waits for what the default stream has queued so far.
  void after_compute() {
    cuda_check(cudaEventRecord(ready, 0), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(side, ready, 0), "cudaStreamWaitEvent");
  }
  // Waits for the side stream, polling NCCL for a failed peer.
  void wait() {
    cuda_check(cudaEventRecord(done, side), "cudaEventRecord");
    for (;;) {
      const cudaError_t q = cudaEventQuery(done);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) cuda_check(q, "NCCL collective");
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        broken = true;
        ncclCommAbort(comm);
        comm = nullptr;
        nccl_check(async, "NCCL collective");
      }
      std::this_thread::yield();
    }
    pending = false;
  }
};

NcclCommunicator::NcclCommunicator(const WorldInfo& world, std::unique_ptr<Communicator> bootstrap,
                                   const std::string& id_file)
    : impl_(std::make_unique<Impl>()), rank_(world.rank), size_(world.size) {
  impl_->bootstrap = std::move(bootstrap);
  if (size_ > 1 && !impl_->bootstrap && id_file.empty())
    throw Error(
        "GPU ranks launched without MPI need --nccl-id-file, a path on a filesystem every "
        "rank sees, to share NCCL's id");
  int count = 0;
  cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  const int device =
      choose_gpu(world.local_rank, world.local_size, count, std::getenv("CUDA_VISIBLE_DEVICES"));
  cuda_check(cudaSetDevice(device), "cudaSetDevice");

  ncclUniqueId id;
  if (rank_ == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  if (impl_->bootstrap)
    impl_->bootstrap->broadcast(&id, sizeof id, 0);
  else if (!id_file.empty())
    share_id_through_file(id, rank_, id_file);

  cuda_check(cudaStreamCreateWithFlags(&impl_->side, cudaStreamNonBlocking), "cudaStreamCreate");
  cuda_check(cudaEventCreateWithFlags(&impl_->ready, cudaEventDisableTiming), "cudaEventCreate");
  cuda_check(cudaEventCreateWithFlags(&impl_->done, cudaEventDisableTiming), "cudaEventCreate");
  cuda_check(cudaMalloc(&impl_->scratch, 8), "cudaMalloc");
  nccl_check(ncclCommInitRank(&impl_->comm, size_, id, rank_), "ncclCommInitRank");
  // Every rank has joined, so the id file has been read: no stale id for a later job.
  if (rank_ == 0 && !impl_->bootstrap && !id_file.empty()) std::remove(id_file.c_str());
}

NcclCommunicator::~NcclCommunicator() = default;

void NcclCommunicator::iallreduce_sum(float* p, size_t n) {
  if (!impl_->comm) throw Error("NCCL communicator is broken after an earlier failure");
  impl_->after_compute();
  nccl_check(ncclAllReduce(p, p, n, ncclFloat, ncclSum, impl_->comm, impl_->side), "ncclAllReduce");
  impl_->pending = true;
}

void NcclCommunicator::wait_all() {
  if (impl_->pending) impl_->wait();
}

void NcclCommunicator::allreduce_sum(float* p, size_t n) {
  iallreduce_sum(p, n);
  wait_all();
}

void NcclCommunicator::broadcast(void* p, size_t bytes, int root) {
  if (root < 0 || root >= size_)
    throw Error("broadcast: root rank " + std::to_string(root) + " outside a world of " +
                std::to_string(size_));
  if (!impl_->comm) throw Error("NCCL communicator is broken after an earlier failure");
  impl_->after_compute();
  nccl_check(ncclBroadcast(p, p, bytes, ncclChar, root, impl_->comm, impl_->side), "ncclBroadcast");
  impl_->wait();
}

void NcclCommunicator::barrier() { allreduce_int64(0, ReduceOp::Sum); }

double NcclCommunicator::allreduce_double(double x, ReduceOp op) {
  if (!impl_->comm) throw Error("NCCL communicator is broken after an earlier failure");
  return impl_->allreduce_scalar(x, ncclDouble, op);
}

int64_t NcclCommunicator::allreduce_int64(int64_t x, ReduceOp op) {
  if (!impl_->comm) throw Error("NCCL communicator is broken after an earlier failure");
  return impl_->allreduce_scalar(x, ncclInt64, op);
}

#else  // no NCCL in this build

bool built_with_nccl() { return false; }

struct NcclCommunicator::Impl {};

NcclCommunicator::NcclCommunicator(const WorldInfo&, std::unique_ptr<Communicator>,
                                   const std::string&) {
  throw Error(
      "this build has no NCCL: GPU data-parallel training needs the CUDA build "
      "(-DATTNLAB_CUDA=ON) with NCCL in the CUDA toolkit");
}
NcclCommunicator::~NcclCommunicator() = default;
void NcclCommunicator::allreduce_sum(float*, size_t) {}
void NcclCommunicator::iallreduce_sum(float*, size_t) {}
void NcclCommunicator::wait_all() {}
void NcclCommunicator::broadcast(void*, size_t, int) {}
void NcclCommunicator::barrier() {}
double NcclCommunicator::allreduce_double(double x, ReduceOp) { return x; }
int64_t NcclCommunicator::allreduce_int64(int64_t x, ReduceOp) { return x; }

#endif

std::unique_ptr<Communicator> make_nccl_communicator(const WorldInfo& world,
                                                     std::unique_ptr<Communicator> bootstrap,
                                                     const std::string& id_file) {
  return std::make_unique<NcclCommunicator>(world, std::move(bootstrap), id_file);
}

}  // namespace attnlab
