// Model checkpoints (see checkpoint.hpp).
#include "io/checkpoint.hpp"

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "core/check.hpp"
#include "core/json.hpp"
#include "models/memory.hpp"

namespace attnlab {

namespace {

bool is_training_state(const std::string& name) { return name.rfind("optimizer.", 0) == 0; }

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out;
  for (int64_t d : s) out += (out.empty() ? "" : ",") + std::to_string(d);
  return "[" + out + "]";
}

// Throws naming the tensor and the first NaN/Inf in its values.
void check_finite(const std::string& name, const std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    AL_CHECK(std::isfinite(v[i]), "tensor " << name << " holds " << v[i] << " at index " << i
                                            << ": the weights are not finite (allow them with"
                                               " --allow-nonfinite / allow_nonfinite)");
}

// Refuses, before the model is allocated, a config that is invalid, that does not fit the memory
// budget, or that needs far more values than the file holds (a header that claims a huge model).
void check_size_before_building(const nlohmann::json& cfg, const SafeTensors& st) {
  check_model_config(cfg);
  const SizeEstimate e = estimate_size(cfg, 1, 1, 1);
  attnlab::check_fits(e, "the checkpoint's model");
  double held = 0;  // values in model tensors, whatever their dtype
  for (const StTensor& t : st.tensors)
    if (!is_training_state(t.name)) held += double(t.numel());
  // The estimate is approximate (tied weights, norms): refuse only a file holding less than
  // half of what the config needs.
  AL_CHECK(2 * held >= e.params,
           "the checkpoint's config needs about "
               << long(e.params) << " parameters (" << long(e.params * 4 / (1 << 20))
               << " MB as float32), but the file holds only " << long(held) << " values");
}

}  // namespace

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

nlohmann::json checkpoint_config(const SafeTensors& st) {
  auto it = st.metadata.find("attnlab");
  AL_CHECK(it != st.metadata.end(), "checkpoint has no \"attnlab\" config in __metadata__");
  return parse_json_object(it->second, "the checkpoint's \"attnlab\" config");
}

std::string config_difference(const nlohmann::json& a, const nlohmann::json& b) {
  // training settings, not the architecture
  static const std::set<std::string> kIgnored = {
      "dropout", "attention_dropout", "activation_dropout", "enc_layer_drop", "dec_layer_drop"};
  std::set<std::string> keys;
  for (const auto* j : {&a, &b})
    if (j->is_object())
      for (auto it = j->begin(); it != j->end(); ++it) keys.insert(it.key());
  for (const std::string& k : keys) {
    if (kIgnored.count(k)) continue;
    const bool ina = a.is_object() && a.contains(k), inb = b.is_object() && b.contains(k);
    if (ina != inb || (ina && a[k] != b[k])) return k;
  }
  return "";
}

namespace {

// A config in st's metadata must agree with m's on every key both have.
void check_config_matches(const Model& m, const SafeTensors& st) {
  if (st.metadata.count("attnlab")) {
    const nlohmann::json cfg = checkpoint_config(st);
    // Keys the model filled in from defaults may be absent from a hand-written config.
    nlohmann::json mine = nlohmann::json::object();
    for (auto it = cfg.begin(); it != cfg.end(); ++it)
      if (m.config().contains(it.key())) mine[it.key()] = m.config()[it.key()];
    nlohmann::json theirs = cfg;
    for (auto it = cfg.begin(); it != cfg.end(); ++it)
      if (!m.config().contains(it.key())) theirs.erase(it.key());
    const std::string k = config_difference(theirs, mine);
    AL_CHECK(k.empty(), "the checkpoint's config differs from the model's at \""
                            << k << "\": " << (theirs.contains(k) ? theirs[k].dump() : "absent")
                            << " vs " << (mine.contains(k) ? mine[k].dump() : "absent"));
  }
}

void copy_tensors(Model& m, const SafeTensors& st, bool allow_nonfinite) {
  ParamArena& P = m.params();
  std::vector<std::pair<int, const StTensor*>> plan;
  std::set<std::string> known;
  auto check = [&](const std::string& name, int id) {
    const ParamInfo& p = P.info(id);
    const StTensor* t = st.find(name);
    AL_CHECK(t, "checkpoint lacks tensor " << name);
    AL_CHECK(t->dtype == "F32" || t->dtype == "F16" || t->dtype == "BF16",
             "tensor " << name << " has dtype " << t->dtype << ", expected F32, F16 or BF16");
    const std::vector<int64_t> want(p.shape.begin(), p.shape.end());
    AL_CHECK(t->shape == want, "tensor " << name << " has shape " << shape_str(t->shape)
                                         << ", the config needs " << shape_str(want));
    plan.emplace_back(id, t);
  };
  for (size_t i = 0; i < P.list().size(); ++i) {
    check(P.list()[i].name, int(i));
    known.insert(P.list()[i].name);
  }
  for (const auto& [name, id] : m.aliases()) {
    if (st.find(name)) check(name, id);
    known.insert(name);
  }
  for (const StTensor& t : st.tensors)
    AL_CHECK(known.count(t.name) || is_training_state(t.name),
             "checkpoint has tensor " << t.name << ", which a " << m.kind()
                                      << " model with this config does not have");
  for (const auto& [id, t] : plan) {
    if (t->dtype == "F32" && allow_nonfinite) {
      m.kernels().upload(P.val(id), t->data.data(), t->data.size());
    } else {  // half precision (attn export --half) is widened on load
      const std::vector<float> v = t->to_f32();
      if (!allow_nonfinite) check_finite(t->name, v);
      m.kernels().upload(P.val(id), v.data(), v.size() * sizeof(float));
    }
  }
}

}  // namespace

void load_parameters(Model& m, const SafeTensors& st, bool allow_nonfinite) {
  check_config_matches(m, st);
  copy_tensors(m, st, allow_nonfinite);
}

std::unique_ptr<Model> model_from_safetensors(const SafeTensors& st, const KernelTable& kt,
                                              nlohmann::json* train_state, bool allow_nonfinite) {
  const nlohmann::json cfg = checkpoint_config(st);
  check_size_before_building(cfg, st);
  std::unique_ptr<Model> m = make_model(cfg, kt, 0);
  copy_tensors(*m, st, allow_nonfinite);  // m was built from st's config: nothing to compare
  if (train_state) {
    auto ts = st.metadata.find("attnlab_train");
    *train_state = nlohmann::json::object();
    if (ts != st.metadata.end()) {
      nlohmann::json j = parse_json(ts->second, "the checkpoint's training state");
      if (j.is_object()) *train_state = j;
    }
  }
  return m;
}

std::unique_ptr<Model> load_checkpoint(const std::string& path, const KernelTable& kt,
                                       nlohmann::json* train_state, bool allow_nonfinite) {
  const SafeTensors st = read_safetensors(path);
  try {
    return model_from_safetensors(st, kt, train_state, allow_nonfinite);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace attnlab
