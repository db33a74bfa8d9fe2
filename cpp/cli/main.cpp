// attn: train, evaluate and run attnlab models from the command line. Any failure prints one
// line on stderr and exits non-zero (1: runtime error, 2: usage error). The process's World is
// made first: under mpirun (or RANK / WORLD_SIZE) `attn train` runs data-parallel
// (cli/data_parallel.hpp); otherwise it is a world of one and nothing changes. A rank of several
// that fails names itself and ends the whole job (the others may wait in a collective for it).
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "cli/commands.hpp"
#include "cli/data_parallel.hpp"
#include "core/check.hpp"
#include "parallel/world.hpp"

int main(int argc, char** argv) {
  using namespace attnlab::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  const Command* cmd = find_command(argv[1]);
  if (!cmd) {
    std::fprintf(stderr, "attn: unknown command \"%s\" (try attn --help)\n", argv[1]);
    return 2;
  }
  std::unique_ptr<attnlab::World> world;
  std::string who = std::string("attn ") + cmd->name;
  try {
    world = std::make_unique<attnlab::World>(&argc, &argv);
    set_world(world.get());
    if (world->size() > 1)
      who +=
          " (rank " + std::to_string(world->rank()) + " of " + std::to_string(world->size()) + ")";
    Args args(argc, argv, 2);
    return cmd->run(args);
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of memory\n", who.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
  }
  if (world && world->size() > 1) world->abort(1);
  return 1;
}
