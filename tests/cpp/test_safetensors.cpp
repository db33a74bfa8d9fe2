// Checkpoints: a save/load round trip reproduces parameters and outputs exactly; damaged files
// (truncated anywhere, bad header length, malformed JSON, wrong dtype/shape/offsets, missing
// tensors, a config that disagrees with the tensors) are rejected with an attnlab::Error.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/check.hpp"
#include "io/checkpoint.hpp"

using namespace attnlab;

namespace {

std::unique_ptr<Model> small_model(uint64_t seed) {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 7},  {"tgt_vocab", 8},
                              {"d_model", 8},           {"heads", 2},      {"d_ff", 16},
                              {"enc_layers", 1},        {"dec_layers", 1}, {"max_len", 12},
                              {"tie_embeddings", true}};
  return make_model(cfg, cpu_kernels(), seed);
}

Batch tiny_batch() {
  Batch b;
  b.B = 1;
  b.S = 3;
  b.T = 3;
  b.src = {3, 4, 5};
  b.tgt_in = {1, 5, 4};
  b.tgt_out = {5, 4, 2};
  return b;
}

std::vector<uint8_t> bytes_of(Model& m) { return serialize_safetensors(model_tensors(m)); }

void expect_rejected(const std::vector<uint8_t>& b, const std::string& needle) {
  try {
    const SafeTensors st = parse_safetensors(b.data(), b.size());
    model_from_safetensors(st, cpu_kernels());
    FAIL("accepted a damaged checkpoint (expected: " << needle << ")");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

// Rewrites the JSON header (keeping the data) with f applied to it.
std::vector<uint8_t> edit_header(const std::vector<uint8_t>& b,
                                 const std::function<void(nlohmann::json&)>& f) {
  uint64_t n = 0;
  std::memcpy(&n, b.data(), 8);
  nlohmann::json h = nlohmann::json::parse(b.begin() + 8, b.begin() + 8 + long(n));
  f(h);
  const std::string js = h.dump();
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(uint64_t(js.size()) >> (8 * i)));
  for (char ch : js) out.push_back(uint8_t(ch));
  out.insert(out.end(), b.begin() + 8 + long(n), b.end());
  return out;
}

}  // namespace

TEST_CASE("safetensors: checkpoint round trip reproduces the model exactly", "[io]") {
  auto a = small_model(3);
  const std::string path = "attnlab_roundtrip_test.safetensors";
  save_checkpoint(*a, path, {{"step", 7}});
  nlohmann::json state;
  auto b = load_checkpoint(path, cpu_kernels(), &state);
  std::remove(path.c_str());
  CHECK(state["step"] == 7);
  CHECK(b->config() == a->config());
  REQUIRE(a->params().total() == b->params().total());
  CHECK(std::memcmp(a->params().values(), b->params().values(),
                    size_t(a->params().total()) * sizeof(float)) == 0);
  const Batch batch = tiny_batch();
  CHECK(a->forward(batch, false, nullptr, 0.f) == b->forward(batch, false, nullptr, 0.f));
  CHECK(a->logits() == b->logits());
  // tied weights are written under both names
  const SafeTensors st = model_tensors(*a);
  REQUIRE(st.find("generator.weight"));
  CHECK(st.find("generator.weight")->data == st.find("tgt_embed.weight")->data);
  // a differently seeded model differs (the comparison above is not vacuous)
  auto c = small_model(4);
  CHECK(std::memcmp(a->params().values(), c->params().values(),
                    size_t(a->params().total()) * sizeof(float)) != 0);
}

TEST_CASE("safetensors: truncated files are rejected at every length", "[io]") {
  auto m = small_model(1);
  const std::vector<uint8_t> b = bytes_of(*m);
  for (size_t n = 0; n < b.size(); n += (n < 64 ? 1 : 97)) {
    const std::vector<uint8_t> cut(b.begin(), b.begin() + long(n));
    CHECK_THROWS_AS(
        model_from_safetensors(parse_safetensors(cut.data(), cut.size()), cpu_kernels()), Error);
  }
}

TEST_CASE("safetensors: malformed headers and mismatching tensors are rejected", "[io]") {
  auto m = small_model(1);
  const std::vector<uint8_t> b = bytes_of(*m);
  std::vector<uint8_t> huge = b;
  huge[6] = 0x7f;
  expect_rejected(huge, "header length");
  std::vector<uint8_t> garbage = b;
  garbage[9] = '#';
  expect_rejected(garbage, "not valid JSON");
  expect_rejected(
      edit_header(b, [](nlohmann::json& h) { h["encoder.norm.weight"]["dtype"] = "F16"; }),
      "");  // half the bytes the offsets hold
  expect_rejected(
      edit_header(b, [](nlohmann::json& h) { h["encoder.norm.weight"]["dtype"] = "I32"; }),
      "expected F32, F16 or BF16");
  expect_rejected(
      edit_header(b, [](nlohmann::json& h) { h["encoder.norm.weight"]["dtype"] = "Q4"; }),
      "unknown dtype");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                h["encoder.norm.weight"]["shape"] = {4, 2};
                              }),
                  "shape [4,2]");
  expect_rejected(
      edit_header(b, [](nlohmann::json& h) { h["encoder.norm.weight"]["shape"] = {-8}; }),
      "negative");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                h["encoder.norm.weight"]["data_offsets"] = {0, 1u << 30};
                              }),
                  "outside");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                auto o = h["encoder.norm.bias"]["data_offsets"];
                                h["encoder.norm.weight"]["data_offsets"] = o;
                              }),
                  "overlap");
  expect_rejected(edit_header(b, [](nlohmann::json& h) { h.erase("decoder.norm.bias"); }),
                  "lacks tensor decoder.norm.bias");
  expect_rejected(edit_header(b, [](nlohmann::json& h) { h.erase("__metadata__"); }),
                  "no \"attnlab\" config");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                h["__metadata__"]["attnlab"] =
                                    "{\"model\": \"transformer\", \"d_model\": 12}";
                              }),
                  "");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                h["__metadata__"]["attnlab"] =
                                    "{\"model\": \"transformer\", \"heads\": 3, \"d_model\": 8}";
                              }),
                  "not divisible");
  expect_rejected(edit_header(b, [](nlohmann::json& h) { h["__metadata__"]["attnlab"] = "{oops"; }),
                  "not valid JSON");
  expect_rejected(edit_header(b,
                              [](nlohmann::json& h) {
                                h["__metadata__"] = {{"attnlab", 5}};
                              }),
                  "not a string");
}
