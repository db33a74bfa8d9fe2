// attn forward / grad / translate: run a checkpoint on one given sequence.
//   forward:   {"logits": [[...V], ...T]} the decoder's logits at each target position
//   grad:      {"loss": x} and every parameter's gradient written under its own name
//   translate: {"tokens": [...]} by greedy or beam decoding; with --text/--input (a checkpoint
//              carrying a BPE vocabulary) {"source", "text", "tokens", "src"} per sentence
// forward and translate load weights holding NaN/Inf only with --allow-nonfinite (to inspect a
// broken run); decoding is then still defined (decode.hpp) and ends within max_len.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "data/bpe.hpp"
#include "eval/decode.hpp"
#include "io/checkpoint.hpp"
#include "train/parallel_trainer.hpp"

namespace attnlab::cli {

namespace {

void check_ids(const std::vector<int32_t>& ids, int vocab, const char* what) {
  for (int32_t t : ids)
    AL_CHECK(t >= 0 && t < vocab,
             what << ": token id " << t << " out of range [0, " << vocab << ")");
}

Batch one(const Model& m, const std::vector<int32_t>& src, const std::vector<int32_t>& tin,
          const std::vector<int32_t>& tout) {
  check_ids(src, m.src_vocab(), "--src");
  check_ids(tin, m.out_vocab(), "target input");
  check_ids(tout, m.out_vocab(), "--tgt-out");
  AL_CHECK(!tin.empty(), "the target sequence is empty");
  AL_CHECK(tout.empty() || tout.size() == tin.size(), "--tgt-in and --tgt-out differ in length");
  const int max_len = m.position_limit();
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
  const bool text_mode = a.has("text") || a.has("input");
  AL_CHECK(text_mode || a.has("src"),
           "attn translate: give --src \"ids\", --text \"sentence\" or --input FILE");
  AL_CHECK(int(a.has("text")) + int(a.has("input")) + int(a.has("src")) == 1,
           "attn translate: give only one of --src, --text and --input");
  const int beam = a.integer("beam", text_mode ? 4 : 1, 1, 64);
  const double alpha = a.number("alpha", 0.6, 0, 10);
  const int max_len_flag = a.integer("max-len", 0, 0, 1 << 16);
  const int limit_lines = a.integer("limit", 0, 0, 1 << 24);
  const bool allow_nonfinite = a.flag("allow-nonfinite");
  std::vector<int32_t> src_ids;
  if (!text_mode) src_ids = parse_ids(a.str("src"), "--src");
  const std::string text = a.str("text", ""), input = a.str("input", "");
  set_num_threads(a.integer("threads", 1, 1, 256));
  a.finish();
  nlohmann::json state;
  auto m = load_checkpoint(path, cpu_kernels(), &state, allow_nonfinite);
  // a model without positions (the recurrent kinds): its corpus's sentence bound + <s> and </s>,
  // else 257 (a session's decoding bound, 256 tokens)
  int max_len = m->position_limit();
  if (max_len <= 0) {
    const nlohmann::json opts = state.value("options", nlohmann::json::object());
    max_len = opts.is_object() && opts.contains("max_len") && opts["max_len"].is_number_integer()
                  ? std::max(1, std::min(opts["max_len"].get<int>(), 1 << 16)) + 2
                  : 257;
  }
  auto limit_for = [&](size_t src_len) {
    int limit = max_len_flag ? max_len_flag : max_len - 1;
    if (m->packs_source()) limit = std::min(limit, max_len - int(src_len) - 1);
    limit = std::min(limit, max_len - 1);
    AL_CHECK(limit >= 1, "no room left to generate within max_len");
    return limit;
  };
  if (!text_mode) {
    check_ids(src_ids, m->src_vocab(), "--src");
    AL_CHECK(int(src_ids.size()) <= max_len, "source longer than the model's max_len " << max_len);
    const std::vector<int32_t> toks =
        beam_decode(*m, src_ids, beam, limit_for(src_ids.size()), float(alpha));
    std::printf("%s\n", nlohmann::json({{"tokens", toks}}).dump().c_str());
    return 0;
  }
  // Text in, text out: the checkpoint's BPE vocabulary (attn train --task parallel) encodes the
  // source and decodes the output. --input reads one sentence a line (a TSV line's first column,
  // so a test split works as it is) and prints one JSON object a line, in order.
  AL_CHECK(state.contains("vocab") && state["vocab"].is_string(),
           path << " carries no BPE vocabulary: --text and --input need a checkpoint of attn train "
                   "--task parallel (use --src with token ids)");
  const Bpe bpe = Bpe::from_json(state["vocab"].get<std::string>());
  auto translate_one = [&](const std::string& sentence) {
    const std::vector<int32_t> ids = bpe.encode(sentence);
    AL_CHECK(!ids.empty(), "nothing to translate: the sentence has no words");
    AL_CHECK(
        int(ids.size()) <= max_len,
        "the sentence is " << ids.size() << " tokens long; the model reads at most " << max_len);
    const int limit =
        max_len_flag ? limit_for(ids.size()) : translation_limit(ids.size(), limit_for(ids.size()));
    const std::vector<int32_t> toks = beam_decode(*m, ids, beam, limit, float(alpha));
    std::printf(
        "%s\n",
        nlohmann::json(
            {{"source", sentence}, {"text", bpe.decode(toks)}, {"tokens", toks}, {"src", ids}})
            .dump()
            .c_str());
  };
  if (!text.empty() || a.has("text")) {
    translate_one(text);
    return 0;
  }
  std::ifstream in(input, std::ios::binary);
  AL_CHECK(in, "cannot open --input " << input);
  std::string line;
  long n = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while ((limit_lines == 0 || n < limit_lines) && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string sentence = line.substr(0, line.find('\t'));
    if (sentence.empty()) continue;
    translate_one(sentence);
    ++n;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr,
               "translated %ld sentences in %.1f ms (%.2f ms per sentence, beam %d, %d threads)\n",
               n, ms, n ? ms / double(n) : 0.0, beam, num_threads());
  return 0;
}

}  // namespace attnlab::cli
