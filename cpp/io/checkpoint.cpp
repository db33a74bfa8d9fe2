// Model checkpoints (see checkpoint.hpp).
#include "io/checkpoint.hpp"

#include <vector>

#include "core/check.hpp"

namespace attnlab {

SafeTensors model_tensors(Model& m, bool grads, const nlohmann::json& train_state) {
  ParamArena& P = m.params();
  const KernelTable& kt = m.kernels();
  SafeTensors st;
  st.metadata["attnlab"] = m.config().dump();
  if (!train_state.is_null()) st.metadata["attnlab_train"] = train_state.dump();
  auto add = [&](const std::string& name, int id) {
    const ParamInfo& p = P.info(id);
    std::vector<float> host(size_t(p.numel));
    kt.download(host.data(), grads ? P.grad(id) : P.val(id), host.size() * sizeof(float));
    st.add_f32(name, std::vector<int64_t>(p.shape.begin(), p.shape.end()), host.data());
  };
  for (size_t i = 0; i < P.list().size(); ++i) add(P.list()[i].name, int(i));
  for (const auto& [name, id] : m.aliases()) add(name, id);
  return st;
}

void save_checkpoint(Model& m, const std::string& path, const nlohmann::json& train_state) {
  write_safetensors_atomic(path, model_tensors(m, false, train_state));
}

void load_parameters(Model& m, const SafeTensors& st) {
  ParamArena& P = m.params();
  std::vector<std::pair<int, const StTensor*>> plan;
  auto check = [&](const std::string& name, int id) {
    const ParamInfo& p = P.info(id);
    const StTensor* t = st.find(name);
    AL_CHECK(t, "checkpoint lacks tensor " << name);
    AL_CHECK(t->dtype == "F32" || t->dtype == "F16" || t->dtype == "BF16",
             "tensor " << name << " has dtype " << t->dtype << ", expected F32, F16 or BF16");
    const std::vector<int64_t> want(p.shape.begin(), p.shape.end());
    if (t->shape != want) {
      std::string got, exp;
      for (int64_t d : t->shape) got += (got.empty() ? "" : ",") + std::to_string(d);
      for (int64_t d : want) exp += (exp.empty() ? "" : ",") + std::to_string(d);
      AL_CHECK(false, "tensor " << name << " has shape [" << got << "], the config needs [" << exp << "]");
    }
    plan.emplace_back(id, t);
  };
  for (size_t i = 0; i < P.list().size(); ++i) check(P.list()[i].name, int(i));
  for (const auto& [name, id] : m.aliases())
    if (st.find(name)) check(name, id);
  for (const auto& [id, t] : plan) {
    if (t->dtype == "F32") {
      m.kernels().upload(P.val(id), t->data.data(), t->data.size());
    } else {  // half-precision export (attn export --half): widened on load
      const std::vector<float> v = t->to_f32();
      m.kernels().upload(P.val(id), v.data(), v.size() * sizeof(float));
    }
  }
}

std::unique_ptr<Model> model_from_safetensors(const SafeTensors& st, const KernelTable& kt,
                                              nlohmann::json* train_state) {
  auto it = st.metadata.find("attnlab");
  AL_CHECK(it != st.metadata.end(), "checkpoint has no \"attnlab\" config in __metadata__");
  const nlohmann::json cfg = nlohmann::json::parse(it->second, nullptr, false);
  AL_CHECK(!cfg.is_discarded(), "the checkpoint's \"attnlab\" config is not valid JSON");
  std::unique_ptr<Model> m = make_model(cfg, kt, 0);
  load_parameters(*m, st);
  if (train_state) {
    auto ts = st.metadata.find("attnlab_train");
    *train_state = nlohmann::json::object();
    if (ts != st.metadata.end()) {
      nlohmann::json j = nlohmann::json::parse(ts->second, nullptr, false);
      if (j.is_object()) *train_state = j;
    }
  }
  return m;
}

std::unique_ptr<Model> load_checkpoint(const std::string& path, const KernelTable& kt,
                                       nlohmann::json* train_state) {
  const SafeTensors st = read_safetensors(path);
  try {
    return model_from_safetensors(st, kt, train_state);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace attnlab
