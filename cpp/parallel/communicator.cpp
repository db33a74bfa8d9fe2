// The local communicator and the choice of backend for a world (see communicator.hpp).
#include "parallel/communicator.hpp"

#include "attnlab/error.hpp"
#include "parallel/mpi_communicator.hpp"
#include "parallel/nccl_communicator.hpp"
#include "parallel/world.hpp"

namespace attnlab {

void LocalCommunicator::broadcast(void*, size_t, int root) {
  if (root != 0) throw Error("broadcast: root rank " + std::to_string(root) + " in a world of one");
}

std::unique_ptr<Communicator> make_communicator(const WorldInfo& world, bool cuda,
                                                const std::string& nccl_id_file) {
  if (cuda) {
    if (world.size == 1 && world.launcher == Launcher::Single)
      return std::make_unique<LocalCommunicator>();
    std::unique_ptr<Communicator> bootstrap;
    if (world.launcher == Launcher::Mpi) bootstrap = make_mpi_communicator();
    return make_nccl_communicator(world, std::move(bootstrap), nccl_id_file);
  }
  if (world.size == 1) return std::make_unique<LocalCommunicator>();
  if (world.launcher != Launcher::Mpi)
    throw Error(
        "data-parallel training on the CPU needs MPI: launch with mpirun (RANK / "
        "WORLD_SIZE without MPI serve GPU ranks only, through NCCL)");
  return make_mpi_communicator();
}

}  // namespace attnlab
