// Who this process is in a data-parallel job. detect_world() reads the launcher's environment:
// mpirun (Open MPI's OMPI_COMM_WORLD_*, MPICH/Slurm PMI_*, PMIx) means an MPI world; RANK /
// WORLD_SIZE / LOCAL_RANK (torchrun, or srun wrappers that set them) mean a world without MPI
// (GPU ranks that bootstrap NCCL through a shared file); anything else is a single process.
// World is the process's one handle on it: it calls MPI_Init only when launched under MPI (so
// one binary serves both) and MPI_Finalize when destroyed; rank and size then come from MPI.
#pragma once
#include <functional>
#include <string>

namespace attnlab {

enum class Launcher { Single, Mpi, Env };

struct WorldInfo {
  Launcher launcher = Launcher::Single;
  int rank = 0, size = 1;              // in the whole job
  int local_rank = 0, local_size = 1;  // among the ranks on this host (picks the GPU)
};

const char* launcher_name(Launcher l);  // "single", "mpi", "env"

// Reads the world from an environment lookup (getenv by default; tests pass a map). Under MPI
// the ranks are provisional (PMIx sets no size): World replaces them with MPI's. Inconsistent
// values (RANK=2 WORLD_SIZE=2, a non-number) are an attnlab::Error.
using EnvLookup = std::function<const char*(const char*)>;
WorldInfo detect_world(const EnvLookup& env = nullptr);

// True when this build can talk MPI (built with ATTNLAB_MPI and MPI found).
bool built_with_mpi();

class World {
 public:
  // Detects the world; under MPI initialises it (MPI_THREAD_FUNNELED: only the thread that made
  // the World calls MPI) and sets MPI_ERRORS_RETURN so failures become attnlab::Error. Launched
  // with several ranks under MPI by a build without MPI: an Error. One World per process.
  World(int* argc = nullptr, char*** argv = nullptr);
  ~World();  // MPI_Finalize (skipped after abort())
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const WorldInfo& info() const { return info_; }
  int rank() const { return info_.rank; }
  int size() const { return info_.size; }
  bool mpi() const { return info_.launcher == Launcher::Mpi; }

  // Ends every rank of the job now (MPI_Abort under MPI, else exit). A front end that caught an
  // Error on one rank of several calls this instead of returning: the other ranks may be waiting
  // in a collective that this rank will never join.
  [[noreturn]] void abort(int code) const;

 private:
  WorldInfo info_;
  bool mpi_initialised_ = false;
};

}  // namespace attnlab
