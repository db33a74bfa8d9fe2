// No input traps the engine (native half): decoding is defined for any logits (NaN, Inf, huge
// weights), checkpoints with non-finite weights, tensors of another model kind or a config
// that claims far more than the file holds are refused with one attnlab::Error (before the
// model is allocated where the size is at stake), loads onto a model compare configs, and
// checkpoint writes go through a temporary file unique to each writer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>
#ifndef __EMSCRIPTEN__
#include <thread>
#endif

#include "core/check.hpp"
#include "eval/decode.hpp"
#include "io/checkpoint.hpp"

using namespace attnlab;

namespace {

nlohmann::json small_cfg(const std::string& kind = "transformer") {
  return {{"model", kind}, {"src_vocab", 9},  {"tgt_vocab", 9},  {"d_model", 8},  {"heads", 2},
          {"d_ff", 16},    {"enc_layers", 1}, {"dec_layers", 1}, {"max_len", 16}, {"dropout", 0.0}};
}

// Sets every value of the named parameter (all parameters when name is empty) to x.
void fill(Model& m, const std::string& name, float x) {
  ParamArena& P = m.params();
  for (size_t i = 0; i < P.list().size(); ++i) {
    if (!name.empty() && P.list()[i].name != name) continue;
    const std::vector<float> v(size_t(P.list()[i].numel), x);
    m.kernels().upload(P.val(int(i)), v.data(), v.size() * sizeof(float));
  }
}

void check_tokens(const std::vector<int32_t>& toks, int V, int max_len) {
  CHECK(int(toks.size()) <= max_len);
  for (int32_t t : toks) {
    CHECK(t >= 0);
    CHECK(t < V);
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

SafeTensors with_config(SafeTensors st, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json cfg = nlohmann::json::parse(st.metadata["attnlab"]);
  edit(cfg);
  st.metadata["attnlab"] = cfg.dump();
  return st;
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "attnlab_robust_native";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

int leftover_temps(const std::string& path) {
  const std::filesystem::path p(path);
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    n += e.path().filename().string().rfind(p.filename().string() + ".tmp", 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("beam and greedy decode stay defined on NaN, Inf and huge weights", "[decode][beam]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const std::string kind : {"transformer", "lm", "encoder"}) {
    for (const auto& [param, x] :
         std::vector<std::pair<std::string, float>>{{"generator.weight", nan},
                                                    {"generator.bias", inf},
                                                    {"generator.bias", -inf},
                                                    {"", 1e30f},
                                                    {"", nan},
                                                    {"tgt_embed.weight", 3e38f},
                                                    {"", -inf}}) {
      INFO(kind << " " << (param.empty() ? "all weights" : param) << " = " << x);
      auto m = make_model(small_cfg(kind), cpu_kernels(), 1);
      fill(*m, param, x);
      const int V = m->out_vocab(), max_len = 10;
      check_tokens(beam_decode(*m, {3, 4, 5}, 4, max_len), V, max_len);
      check_tokens(beam_decode(*m, {3, 4, 5}, 1, max_len), V, max_len);
      for (const auto& row : greedy_decode(*m, {{3, 4, 5}, {6}}, max_len))
        check_tokens(row, V, max_len);
    }
  }
}

TEST_CASE("a checkpoint with NaN or Inf weights is refused unless allowed", "[checkpoint]") {
  auto m = make_model(small_cfg(), cpu_kernels(), 1);
  SafeTensors st = model_tensors(*m);
  for (StTensor& t : st.tensors)
    if (t.name == "decoder.layers.0.linear1.weight") {
      const float bad = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(t.data.data() + 8, &bad, 4);
    }
  const std::string e = error_of([&] { model_from_safetensors(st, cpu_kernels()); });
  INFO(e);
  CHECK(e.find("decoder.layers.0.linear1.weight") != std::string::npos);
  CHECK(e.find("not finite") != std::string::npos);
  auto loaded = model_from_safetensors(st, cpu_kernels(), nullptr, true);
  std::vector<float> v(size_t(loaded->params().total()));
  cpu_kernels().download(v.data(), loaded->params().values(), v.size() * sizeof(float));
  bool has_nan = false;
  for (float x : v) has_nan = has_nan || std::isnan(x);
  CHECK(has_nan);
  // float16 exports too: an Inf that was stored in half precision
  SafeTensors half;
  half.metadata = st.metadata;
  for (const StTensor& t : model_tensors(*m).tensors) {
    std::vector<float> f = t.to_f32();
    if (t.name == "src_embed.weight") f[3] = std::numeric_limits<float>::infinity();
    half.add_f16(t.name, t.shape, f.data());
  }
  CHECK(error_of([&] { model_from_safetensors(half, cpu_kernels()); }).find("src_embed.weight") !=
        std::string::npos);
}

TEST_CASE("a checkpoint of another model kind is refused", "[checkpoint]") {
  auto m = make_model(small_cfg(), cpu_kernels(), 1);
  const SafeTensors st = model_tensors(*m);
  for (const std::string kind : {"lm", "encoder"}) {
    const std::string e = error_of([&] {
      model_from_safetensors(with_config(st, [&](nlohmann::json& c) { c["model"] = kind; }),
                             cpu_kernels());
    });
    INFO(kind << ": " << e);
    CHECK(e.find("does not have") != std::string::npos);
  }
  // an extra, unknown tensor is refused; training state ("optimizer.*") is not
  SafeTensors extra = st;
  const float one = 1.f;
  extra.add_f32("decoder.layers.7.bogus", {1}, &one);
  CHECK(error_of([&] {
          model_from_safetensors(extra, cpu_kernels());
        }).find("decoder.layers.7.bogus") != std::string::npos);
  SafeTensors trained = st;
  trained.add_f32("optimizer.m", {1}, &one);
  CHECK_NOTHROW(model_from_safetensors(trained, cpu_kernels()));
  // tied checkpoints keep loading with and without the alias the writer adds
  nlohmann::json tied = small_cfg();
  tied["tie_embeddings"] = true;
  auto t = make_model(tied, cpu_kernels(), 2);
  SafeTensors ts = model_tensors(*t);
  CHECK_NOTHROW(model_from_safetensors(ts, cpu_kernels()));
  ts.tensors.erase(std::remove_if(ts.tensors.begin(), ts.tensors.end(),
                                  [](const StTensor& x) { return x.name == "generator.weight"; }),
                   ts.tensors.end());
  CHECK_NOTHROW(model_from_safetensors(ts, cpu_kernels()));
}

TEST_CASE("a checkpoint claiming a huge model is refused before allocation", "[checkpoint]") {
  SafeTensors st;
  nlohmann::json cfg = small_cfg();
  cfg["d_model"] = 16384;
  cfg["heads"] = 16;
  cfg["src_vocab"] = cfg["tgt_vocab"] = 1 << 20;
  st.metadata["attnlab"] = cfg.dump();
  std::string e = error_of([&] { model_from_safetensors(st, cpu_kernels()); });
  INFO(e);
  CHECK(e.find("MB") != std::string::npos);
  // a config that would fit, but whose tensors are not in the file
  cfg = small_cfg();
  cfg["d_model"] = 512;
  cfg["heads"] = 8;
  cfg["d_ff"] = 2048;
  cfg["src_vocab"] = cfg["tgt_vocab"] = 8000;
  st.metadata["attnlab"] = cfg.dump();
  e = error_of([&] { model_from_safetensors(st, cpu_kernels()); });
  INFO(e);
  CHECK(e.find("holds only 0 values") != std::string::npos);
}

TEST_CASE("loading onto a model compares the checkpoint's config", "[checkpoint]") {
  auto a = make_model(small_cfg(), cpu_kernels(), 1);
  const SafeTensors st = model_tensors(*a);
  nlohmann::json other = small_cfg();
  other["max_len"] = 12;  // same tensor shapes (sinusoidal positions), another model
  auto b = make_model(other, cpu_kernels(), 2);
  const std::string e = error_of([&] { load_parameters(*b, st); });
  INFO(e);
  CHECK(e.find("max_len") != std::string::npos);
  other = small_cfg();
  other["dropout"] = 0.3;  // training settings, not the architecture
  other["attention_dropout"] = 0.1;
  other["activation_dropout"] = 0.2;
  other["enc_layer_drop"] = 0.25;
  other["dec_layer_drop"] = 0.5;
  auto c = make_model(other, cpu_kernels(), 3);
  CHECK_NOTHROW(load_parameters(*c, st));
  CHECK(config_difference(small_cfg(), small_cfg("lm")) == "model");
  CHECK(config_difference(small_cfg(), other).empty());
}

TEST_CASE("checkpoint writes use a unique temporary file and clean up on failure",
          "[checkpoint][safetensors]") {
  auto m = make_model(small_cfg(), cpu_kernels(), 1);
  const std::string path = scratch("atomic.safetensors");
  save_checkpoint(*m, path);
  CHECK(leftover_temps(path) == 0);
  CHECK_NOTHROW(load_checkpoint(path, cpu_kernels()));
  // the target is a directory: the write fails and leaves no temporary file behind
  const std::string dir = scratch("a_directory.safetensors");
  std::filesystem::create_directories(dir);
  CHECK_THROWS_AS(save_checkpoint(*m, dir), Error);
  CHECK(leftover_temps(dir) == 0);
  CHECK_THROWS_AS(check_writable(dir), Error);
  CHECK_THROWS_AS(check_writable(path + "/under/a/file"), Error);
  CHECK_NOTHROW(check_writable(scratch("fresh.safetensors")));
  CHECK_FALSE(std::filesystem::exists(scratch("fresh.safetensors")));
  CHECK(leftover_temps(scratch("fresh.safetensors")) == 0);
#ifndef __EMSCRIPTEN__
  // two writers of one path: whatever is there afterwards is one of them, complete
  auto big = make_model(small_cfg(), cpu_kernels(), 2);
  nlohmann::json wide = small_cfg();
  wide["d_ff"] = 4096;
  auto other = make_model(wide, cpu_kernels(), 3);
  const std::string shared = scratch("shared.safetensors");
  std::vector<std::thread> writers;
  for (Model* w : {big.get(), other.get()})
    writers.emplace_back([w, &shared] {
      for (int i = 0; i < 20; ++i) save_checkpoint(*w, shared);
    });
  for (auto& t : writers) t.join();
  CHECK_NOTHROW(load_checkpoint(shared, cpu_kernels()));
  CHECK(leftover_temps(shared) == 0);
#endif
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}
