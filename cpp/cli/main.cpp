// attn: train, evaluate and run attnlab models from the command line. Any failure prints one
// line on stderr and exits non-zero (1: runtime error, 2: usage error).
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cli/commands.hpp"
#include "core/check.hpp"

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
  try {
    Args args(argc, argv, 2);
    return cmd->run(args);
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "attn %s: %s\n", cmd->name, e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "attn %s: out of memory\n", cmd->name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn %s: %s\n", cmd->name, e.what());
  }
  return 1;
}
