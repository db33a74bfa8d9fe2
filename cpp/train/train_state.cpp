// Optimizer and generator state in checkpoints (see train_state.hpp).
#include "train/train_state.hpp"

#include <cstdint>
#include <vector>

#include "core/check.hpp"

namespace attnlab {

namespace {

const char* kOptimM = "optimizer.m";
const char* kOptimV = "optimizer.v";

}  // namespace

void save_adam(const Adam& adam, ParamArena& P, SafeTensors& st, nlohmann::json& state) {
  AL_CHECK(adam.holds_moments(), "save_adam: this optimizer holds no moments (a replica)");
  const long n = P.total();
  std::vector<float> host(static_cast<size_t>(n));
  const KernelTable& kt = P.kernels();
  kt.download(host.data(), adam.first_moments(), host.size() * sizeof(float));
  st.add_f32(kOptimM, {n}, host.data());
  kt.download(host.data(), adam.second_moments(), host.size() * sizeof(float));
  st.add_f32(kOptimV, {n}, host.data());
  state["adam_steps"] = adam.steps();
}

bool has_optimizer_state(const SafeTensors& st) {
  return st.find(kOptimM) != nullptr && st.find(kOptimV) != nullptr;
}

void restore_adam(Adam& adam, ParamArena& P, const SafeTensors& st, const nlohmann::json& state) {
  const long n = P.total();
  const KernelTable& kt = P.kernels();
  for (const auto& [name, dst] : {std::pair<const char*, float*>{kOptimM, adam.first_moments()},
                                  std::pair<const char*, float*>{kOptimV, adam.second_moments()}}) {
    const StTensor* t = st.find(name);
    AL_CHECK(t && t->numel() == n, "checkpoint has no optimizer state "
                                       << name << " of " << n << " values: cannot resume");
    // a replica's optimizer keeps no moments (or views rank 0's): only the step count
    if (!dst || !adam.holds_moments()) continue;
    const std::vector<float> v = t->to_f32();
    kt.upload(dst, v.data(), v.size() * sizeof(float));
  }
  AL_CHECK(state.contains("adam_steps") && state["adam_steps"].is_number_integer() &&
               state["adam_steps"].get<int64_t>() >= 0 &&
               state["adam_steps"].get<int64_t>() <= INT32_MAX,  // long is 32 bits in wasm32
           "the checkpoint's training state lacks Adam's step count (\"adam_steps\")");
  adam.set_steps(state["adam_steps"].get<int>());
}

nlohmann::json rng_to_json(const Rng& r) {
  nlohmann::json j = nlohmann::json::array();
  for (uint32_t w : r.state()) j.push_back(w);
  return j;
}

void rng_from_json(Rng& r, const nlohmann::json& j, const char* what) {
  AL_CHECK(j.is_array() && j.size() == 6,
           "the checkpoint's " << what << " generator state is not an array of six words");
  Rng::State s{};
  for (size_t i = 0; i < s.size(); ++i) {
    AL_CHECK(j[i].is_number_unsigned() && j[i].get<uint64_t>() <= 0xFFFFFFFFull,
             "the checkpoint's " << what << " generator state holds " << j[i].dump()
                                 << ", not a 32-bit word");
    s[i] = j[i].get<uint32_t>();
  }
  r.set_state(s);
}

}  // namespace attnlab
