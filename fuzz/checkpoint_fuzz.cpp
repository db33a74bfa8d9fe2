// libFuzzer harness for the checkpoint reader: arbitrary bytes go through the safetensors
// parser and, when that accepts them, through config parsing and parameter loading. Anything
// but a clean attnlab::Error (a crash, an ASan report, another exception, a hang) is a bug.
// Build and run: scripts/fuzz.sh (clang++ -fsanitize=fuzzer,address).
#include <cstddef>
#include <cstdint>

#include "core/check.hpp"
#include "io/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attnlab::ParamArena::set_limit(size_t(1) << 20);  // a config may not ask for more than 4 MB
  try {
    const attnlab::SafeTensors st = attnlab::parse_safetensors(data, size);
    attnlab::model_from_safetensors(st, attnlab::cpu_kernels());
  } catch (const attnlab::Error&) {
  }
  return 0;
}
