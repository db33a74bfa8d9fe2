// World detection from the launcher's environment, and MPI's start and end (see world.hpp).
#include "parallel/world.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "attnlab/error.hpp"
#include "parallel/mpi_communicator.hpp"

#ifdef ATTNLAB_WITH_MPI
#include <mpi.h>
#endif

namespace attnlab {

namespace {

bool g_world_alive = false;

// A non-negative decimal integer from variable `name`, or an Error naming it.
int parse_int(const char* name, const char* s) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno || v < 0 || v > (1L << 30))
    throw Error(std::string("launcher environment: ") + name + "=\"" + s +
                "\" is not a non-negative integer");
  return int(v);
}

int get_int(const EnvLookup& env, const char* name, int fallback) {
  const char* s = env(name);
  return s && *s ? parse_int(name, s) : fallback;
}

bool has(const EnvLookup& env, const char* name) {
  const char* s = env(name);
  return s && *s;
}

void validate(const WorldInfo& w) {
  if (w.size < 1) throw Error("launcher environment: the world size must be at least 1");
  if (w.rank >= w.size)
    throw Error("launcher environment: rank " + std::to_string(w.rank) +
                " is not below the world size " + std::to_string(w.size));
  if (w.local_size < 1 || w.local_rank >= w.local_size)
    throw Error("launcher environment: local rank " + std::to_string(w.local_rank) +
                " is not below the local size " + std::to_string(w.local_size));
}

}  // namespace

const char* launcher_name(Launcher l) {
  switch (l) {
    case Launcher::Mpi:
      return "mpi";
    case Launcher::Env:
      return "env";
    default:
      return "single";
  }
}

bool built_with_mpi() {
#ifdef ATTNLAB_WITH_MPI
  return true;
#else
  return false;
#endif
}

WorldInfo detect_world(const EnvLookup& lookup) {
  const EnvLookup env =
      lookup ? lookup : [](const char* n) -> const char* { return std::getenv(n); };
  WorldInfo w;
  if (has(env, "OMPI_COMM_WORLD_SIZE")) {  // Open MPI's mpirun
    w.launcher = Launcher::Mpi;
    w.size = get_int(env, "OMPI_COMM_WORLD_SIZE", 1);
    w.rank = get_int(env, "OMPI_COMM_WORLD_RANK", 0);
    w.local_rank = get_int(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0);
    w.local_size = get_int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", w.local_rank + 1);
  } else if (has(env, "PMI_SIZE") && has(env, "PMI_RANK")) {  // MPICH's hydra, Slurm's PMI-2
    w.launcher = Launcher::Mpi;
    w.size = get_int(env, "PMI_SIZE", 1);
    w.rank = get_int(env, "PMI_RANK", 0);
    w.local_rank = get_int(env, "MPI_LOCALRANKID", get_int(env, "SLURM_LOCALID", 0));
    w.local_size = get_int(env, "MPI_LOCALNRANKS", w.local_rank + 1);
  } else if (has(env, "PMIX_RANK")) {  // PMIx (srun --mpi=pmix, prterun): sizes come from MPI
    w.launcher = Launcher::Mpi;
    w.rank = get_int(env, "PMIX_RANK", 0);
    w.size = get_int(env, "SLURM_NTASKS", w.rank + 1);
    w.local_rank = get_int(env, "SLURM_LOCALID", 0);
    w.local_size = w.local_rank + 1;
  } else if (has(env, "RANK") && has(env, "WORLD_SIZE")) {  // torchrun / srun style, no MPI
    w.launcher = Launcher::Env;
    w.size = get_int(env, "WORLD_SIZE", 1);
    w.rank = get_int(env, "RANK", 0);
    // Without LOCAL_RANK, assume one host: the rank picks the GPU.
    w.local_rank = get_int(env, "LOCAL_RANK", w.rank);
    w.local_size =
        get_int(env, "LOCAL_WORLD_SIZE", has(env, "LOCAL_RANK") ? w.local_rank + 1 : w.size);
  }
  validate(w);
  return w;
}

World::World(int* argc, char*** argv) {
  if (g_world_alive) throw Error("a process has one World: it was already created");
  info_ = detect_world();
  if (info_.launcher == Launcher::Mpi) {
#ifdef ATTNLAB_WITH_MPI
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (finalised) throw Error("MPI was already finalised in this process: it cannot start again");
    if (!initialised) {
      int provided = 0;
      if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw Error("MPI_Init_thread failed: the MPI launch is broken");
      mpi_initialised_ = true;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &info_.rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &info_.size), "MPI_Comm_size");
    MPI_Comm local;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info_.rank, MPI_INFO_NULL,
                                  &local),
              "MPI_Comm_split_type");
    mpi_check(MPI_Comm_rank(local, &info_.local_rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(local, &info_.local_size), "MPI_Comm_size");
    MPI_Comm_free(&local);
#else
    (void)argc;
    (void)argv;
    if (info_.size > 1)
      throw Error("launched under MPI with " + std::to_string(info_.size) +
                  " ranks, but this build has no MPI (configured with ATTNLAB_MPI=OFF or without "
                  "libopenmpi-dev): rebuild with MPI, or run a single process");
    info_ = WorldInfo{};
#endif
  }
  g_world_alive = true;
}

World::~World() {
#ifdef ATTNLAB_WITH_MPI
  if (mpi_initialised_) MPI_Finalize();
#else
  (void)mpi_initialised_;
#endif
  g_world_alive = false;
}

void World::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
#ifdef ATTNLAB_WITH_MPI
  if (mpi_initialised_ || info_.launcher == Launcher::Mpi) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::_Exit(code);
}

}  // namespace attnlab
