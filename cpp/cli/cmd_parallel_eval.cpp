// attn eval --checkpoint C --test test.tsv: corpus BLEU (sacreBLEU's 13a way, beam 4 / alpha 0.6
// by default as in the paper) of a checkpoint of attn train --task parallel, whatever its kind;
// --copy-source scores the untranslated source instead; --hyp writes the translations.
// attn average: the mean of the last K periodic checkpoints of a run (or of --inputs), which must
// hold one model.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "models/config.hpp"
#include "train/parallel_trainer.hpp"

namespace attnlab::cli {

namespace {

// One line per string, written whole or not at all (a temporary file renamed into place).
void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    AL_CHECK(f, "cannot write " << tmp);
    for (const std::string& l : lines) f << l << '\n';
    f.flush();
    AL_CHECK(f, "writing " << tmp << " failed (disk full?)");
  }
  std::filesystem::rename(tmp, path);
}

// attn average: every checkpoint must hold the same model (config compared key by key).
void check_same_configs(const std::vector<std::string>& paths) {
  const nlohmann::json first = checkpoint_config(read_safetensors(paths.front()));
  for (size_t i = 1; i < paths.size(); ++i) {
    const nlohmann::json cfg = checkpoint_config(read_safetensors(paths[i]));
    const std::string k = config_difference(first, cfg);
    AL_CHECK(k.empty(), paths.front() << " and " << paths[i] << " hold different models (\"" << k
                                      << "\": " << (first.contains(k) ? first[k].dump() : "absent")
                                      << " vs " << (cfg.contains(k) ? cfg[k].dump() : "absent")
                                      << "): cannot average them");
  }
}

}  // namespace

int cmd_eval_parallel(Args& a) {
  const std::string test_path = a.need("test");
  // The baseline every translation must beat: the untranslated source as the hypothesis.
  if (a.flag("copy-source")) {
    const std::string hyp_path = a.str("hyp", "");
    const int limit = a.integer("limit", 0, 0, 1 << 24);
    a.finish();
    if (!hyp_path.empty()) check_writable(hyp_path);
    std::vector<std::string> hyps, refs;
    const std::vector<std::string> both = ParallelCorpus::read_sentences(test_path);
    for (size_t i = 0; i + 1 < both.size() && (limit == 0 || int(hyps.size()) < limit); i += 2) {
      hyps.push_back(both[i]);
      refs.push_back(both[i + 1]);
    }
    AL_CHECK(!hyps.empty(), test_path << ": no test pairs");
    const BleuScore b = corpus_bleu(hyps, {refs});
    if (!hyp_path.empty()) write_lines(hyp_path, hyps);
    std::printf("%s\n", nlohmann::json({{"bleu", b.score},
                                        {"detail", b.to_string()},
                                        {"sentences", hyps.size()},
                                        {"baseline", "copy-source"},
                                        {"tokenize", "13a"}})
                            .dump()
                            .c_str());
    return 0;
  }
  const SafeTensors st = read_safetensors(a.need("checkpoint"));
  const bool allow_nonfinite = a.flag("allow-nonfinite");
  const int beam = a.integer("beam", 4, 1, 64);
  const double alpha = a.number("alpha", 0.6, 0, 10);
  const int limit = a.integer("limit", 0, 0, 1 << 24);
  const std::string hyp_path = a.str("hyp", "");
  set_num_threads(a.integer("threads", 1, 1, 256));
  const KernelTable& kt = device_table(a);
  a.finish();
  if (!hyp_path.empty()) check_writable(hyp_path);
  const nlohmann::json state = train_state_of(st);
  const Bpe bpe = Bpe::from_json(state.at("vocab").get<std::string>());
  auto model = model_from_safetensors(st, kt, nullptr, allow_nonfinite);
  const int max_len = state.at("options").at("max_len").get<int>();
  const ParallelCorpus test(test_path, bpe, max_len);
  std::vector<std::string> hyps;
  const BleuScore b =
      evaluate_bleu(*model, test, bpe, beam, float(alpha), limit, max_len + 1, &hyps);
  if (!hyp_path.empty()) write_lines(hyp_path, hyps);
  std::printf("%s\n", nlohmann::json({{"bleu", b.score},
                                      {"detail", b.to_string()},
                                      {"sentences", hyps.size()},
                                      {"skipped", test.skipped()},
                                      {"beam", beam},
                                      {"alpha", alpha},
                                      {"tokenize", "13a"},
                                      {"step", state.value("step", 0)}})
                          .dump()
                          .c_str());
  return 0;
}

int cmd_average(Args& a) {
  const std::string out = a.need("out");
  std::vector<std::string> inputs;
  if (a.has("inputs")) {
    std::string list = a.str("inputs") + ",";
    for (size_t p = 0, q; (q = list.find(',', p)) != std::string::npos; p = q + 1)
      if (q > p) inputs.push_back(list.substr(p, q - p));
  } else {
    const auto all = list_checkpoints(a.need("dir"));
    const int last = a.integer("last", 5, 1, 1000);
    inputs.assign(all.end() - std::min<long>(long(all.size()), last), all.end());
  }
  a.finish();
  AL_CHECK(!inputs.empty(),
           "attn average: no checkpoints given (--inputs a,b or --dir D --last K)");
  check_writable(out);
  check_same_configs(inputs);
  write_safetensors_atomic(out, average_checkpoints(inputs));
  std::fprintf(stderr, "averaged %zu checkpoints into %s\n", inputs.size(), out.c_str());
  return 0;
}

}  // namespace attnlab::cli
