// attn forward / grad / translate: run a checkpoint on one given sequence.
//   forward:   {"logits": [[...V], ...T]} the decoder's logits at each target position
//   grad:      {"loss": x} and every parameter's gradient written under its own name
//   translate: {"tokens": [...]} by greedy or beam decoding
// forward and translate load weights holding NaN/Inf only with --allow-nonfinite (to inspect a
// broken run); decoding is then still defined (decode.hpp) and ends within max_len.
#include <cstdio>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "train/decode.hpp"

namespace attnlab::cli {

namespace {

void check_ids(const std::vector<int32_t>& ids, int vocab, const char* what) {
  for (int32_t t : ids)
    AL_CHECK(t >= 0 && t < vocab, what << ": token id " << t << " out of range [0, " << vocab << ")");
}

Batch one(const Model& m, const std::vector<int32_t>& src, const std::vector<int32_t>& tin,
          const std::vector<int32_t>& tout) {
  check_ids(src, m.config().value("src_vocab", 0), "--src");
  check_ids(tin, m.config().value("tgt_vocab", 0), "target input");
  check_ids(tout, m.config().value("tgt_vocab", 0), "--tgt-out");
  AL_CHECK(!tin.empty(), "the target sequence is empty");
  AL_CHECK(tout.empty() || tout.size() == tin.size(), "--tgt-in and --tgt-out differ in length");
  const int max_len = m.config().value("max_len", 0);
  AL_CHECK(int(src.size()) <= max_len && int(tin.size()) <= max_len,
           "sequence longer than the model's max_len " << max_len);
  Batch b;
  b.B = 1;
  b.S = int(src.size());
  b.T = int(tin.size());
  b.src = src;
  b.tgt_in = tin;
  b.tgt_out = tout.empty() ? std::vector<int32_t>(tin.size(), int32_t(m.pad_id())) : tout;
  return b;
}

}  // namespace

int cmd_forward(Args& a) {
  const std::string path = a.need("checkpoint");
  const auto src = parse_ids(a.str("src"), "--src");
  const auto tgt = parse_ids(a.need("tgt"), "--tgt");
  const bool allow_nonfinite = a.flag("allow-nonfinite");
  a.finish();
  auto m = load_checkpoint(path, cpu_kernels(), nullptr, allow_nonfinite);
  const Batch b = one(*m, src, tgt, {});
  m->forward(b, false, nullptr, 0.f);
  const std::vector<float> z = m->logits();
  const int V = m->out_vocab();
  nlohmann::json rows = nlohmann::json::array();
  for (int t = 0; t < b.T; ++t)
    rows.push_back(std::vector<float>(z.begin() + long(t) * V, z.begin() + long(t + 1) * V));
  std::printf("%s\n", nlohmann::json({{"logits", rows}}).dump().c_str());
  return 0;
}

int cmd_grad(Args& a) {
  const std::string path = a.need("checkpoint");
  const auto src = parse_ids(a.str("src"), "--src");
  const auto tin = parse_ids(a.need("tgt-in"), "--tgt-in");
  const auto tout = parse_ids(a.need("tgt-out"), "--tgt-out");
  const float ls = float(a.number("label-smoothing", 0.0, 0.0, 0.99));
  const std::string out = a.need("out");
  a.finish();
  check_writable(out);
  auto m = load_checkpoint(path, cpu_kernels());
  AL_CHECK(tout.size() == tin.size(), "--tgt-in and --tgt-out differ in length");
  const Batch b = one(*m, src, tin, tout);
  m->params().zero_grad();
  const double loss = m->forward(b, false, nullptr, ls);
  m->backward();
  write_safetensors_atomic(out, model_tensors(*m, true));
  std::printf("%s\n", nlohmann::json({{"loss", loss}}).dump().c_str());
  return 0;
}

int cmd_translate(Args& a) {
  const std::string path = a.need("checkpoint");
  const auto src = parse_ids(a.str("src"), "--src");
  const int beam = a.integer("beam", 1, 1, 64);
  const int max_len_flag = a.integer("max-len", 0, 0, 1 << 16);
  const bool allow_nonfinite = a.flag("allow-nonfinite");
  a.finish();
  auto m = load_checkpoint(path, cpu_kernels(), nullptr, allow_nonfinite);
  check_ids(src, m->config().value("src_vocab", 0), "--src");
  const int max_len = m->config().value("max_len", 0);
  AL_CHECK(int(src.size()) <= max_len, "source longer than the model's max_len " << max_len);
  int limit = max_len_flag ? max_len_flag : max_len - 1;
  if (m->config().value("model", "") == "lm") limit = std::min(limit, max_len - int(src.size()) - 1);
  limit = std::min(limit, max_len - 1);
  AL_CHECK(limit >= 1, "no room left to generate within max_len");
  const std::vector<int32_t> toks = beam_decode(*m, src, beam, limit);
  std::printf("%s\n", nlohmann::json({{"tokens", toks}}).dump().c_str());
  return 0;
}

}  // namespace attnlab::cli
