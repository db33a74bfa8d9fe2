// libFuzzer harness for config JSON and token input. An input is a JSON text, optionally
// followed by a 0 byte and token ids (one signed byte each). The text goes through
// parse_json; an object then through the config check (check_model_config), the size
// estimate and budget (api::estimate_size, check_fits), the model registry (make_model, every config field checked), and, when a model
// was built, the source-row check and greedy and beam decoding of the ids. Anything but a
// clean attnlab::Error (a crash, a sanitizer report, another exception, a hang) is a bug.
// Build and run: scripts/fuzz.sh (clang++ -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "api/memory.hpp"
#include "core/check.hpp"
#include "core/json.hpp"
#include "io/checkpoint.hpp"
#include "models/model.hpp"
#include "train/decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr double kBudget = 64.0 * (1 << 20);  // bytes a fuzzed config may ask for
  attnlab::ParamArena::set_limit(size_t(1) << 20);
  const auto* text = reinterpret_cast<const char*>(data);
  const void* zero = std::memchr(data, 0, size);
  const size_t n = zero ? size_t(static_cast<const uint8_t*>(zero) - data) : size;
  std::vector<int32_t> ids;
  for (size_t i = n + 1; i < size && ids.size() < 16; ++i) ids.push_back(int32_t(int8_t(data[i])));
  try {
    const nlohmann::json j = attnlab::parse_json(std::string_view(text, n), "fuzzed config");
    if (!j.is_object()) return 0;
    attnlab::check_model_config(j);  // as the loaders do before estimating a size
    const attnlab::api::SizeEstimate e = attnlab::api::estimate_size(j, 2, 8, 8);
    if (!(e.total() <= kBudget)) return 0;  // what check_fits would refuse under a small budget
    attnlab::api::check_fits(e, "the fuzzed model");
    auto m = make_model(j, attnlab::cpu_kernels(), 1);
    attnlab::check_source(*m, ids, "fuzzed ids");
    attnlab::greedy_decode(*m, {ids}, 3);
    attnlab::beam_decode(*m, ids, 2, 3);
  } catch (const attnlab::Error&) {
  }
  return 0;
}
