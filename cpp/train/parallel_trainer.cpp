// Parallel-corpus training, checkpoints, BLEU evaluation and averaging (see
// parallel_trainer.hpp).
#include "train/parallel_trainer.hpp"

#include <algorithm>
#include <cstdio>

#include "core/check.hpp"
#include "core/json.hpp"
#include "data/task.hpp"
#include "eval/decode.hpp"
#include "io/checkpoint.hpp"
#include "train/step.hpp"
#include "train/train_state.hpp"

namespace attnlab {

namespace {

std::vector<int> batch_costs(const ParallelCorpus& c) {
  std::vector<int> cost(c.size());
  for (size_t i = 0; i < c.size(); ++i) cost[i] = std::max(c.src_len(i), c.tgt_len(i) + 1);
  return cost;
}

}  // namespace

ParallelTrainer::ParallelTrainer(Model& m, const ParallelCorpus& corpus, const Bpe& bpe,
                                 ParallelTrainOptions o)
    : m_(m),
      corpus_(corpus),
      bpe_(bpe),
      o_(o),
      batcher_(batch_costs(corpus), o.max_tokens, o.seed, 8192, corpus.lexicon_mask(),
               o.lexicon_share),
      // a replica (update false, or a sharded update's rank > 0) holds no moments of its own
      adam_(m.params(), {}, o.dp.update && !(o.dp.shard_update && o.dp.rank > 0)) {
  o.dp.require_valid();
  AL_CHECK(bpe.size() <= m.out_vocab() && bpe.size() <= m.src_vocab(),
           "the vocabulary (" << bpe.size() << " tokens) does not fit the model's");
}

StepInfo ParallelTrainer::step() {
  const std::vector<size_t> global = batcher_.next();
  long first = 0, last = long(global.size());
  if (o_.dp.size > 1) rank_rows(long(global.size()), o_.dp.rank, o_.dp.size, &first, &last);
  std::vector<Example> ex;
  for (long k = first; k < last; ++k) {
    auto [src, tgt] = corpus_.ids(global[size_t(k)]);
    ex.push_back({std::move(src), std::move(tgt)});
  }
  Rng dropout((o_.seed * 0x9E3779B97F4A7C15ull ^ (uint64_t(step_) * 0xD1B54A32D192ED03ull)) +
              uint64_t(o_.dp.rank) * 0xBF58476D1CE4E5B9ull);
  StepOptions so{step_, o_.schedule.at(step_), o_.clip, o_.label_smoothing};
  so.update = o_.dp.update;
  if (o_.dp.shard_update && o_.dp.size > 1) {
    so.shard = o_.dp.rank;
    so.shards = o_.dp.size;
  }
  StepInfo s;
  if (ex.empty()) {  // a global batch with fewer rows than ranks: this rank adds no gradient
    s = train_step(
        m_.params(), adam_, [] { return 0.0; }, 0, so, o_.dp.sync);
  } else {
    Batch b = make_batch(ex);
    if (o_.word_dropout > 0) {  // its own stream of (seed, step, rank): a resume draws the same
      Rng words = word_dropout_rng(o_.seed, step_, o_.dp.rank);
      drop_words(b, o_.word_dropout, o_.word_dropout, Bpe::kUnk, words);
    }
    s = train_step(m_, adam_, b, so, &dropout, o_.dp.sync);
  }
  ++step_;
  return s;
}

void ParallelTrainer::save(const std::string& path, const nlohmann::json& extra) const {
  nlohmann::json state = extra;
  state["step"] = step_ - 1;
  state["batcher"] = batcher_.state();
  state["vocab"] = bpe_.to_json();
  SafeTensors st = model_tensors(m_, false);
  save_adam(adam_, m_.params(), st, state);
  st.metadata["attnlab_train"] = state.dump();
  write_safetensors_atomic(path, st);
}

void ParallelTrainer::restore(const SafeTensors& st) {
  const nlohmann::json state = train_state_of(st);
  restore_adam(adam_, m_.params(), st, state);
  batcher_.restore(state.at("batcher"));
  step_ = state.at("step").get<int>() + 1;
}

nlohmann::json train_state_of(const SafeTensors& st) {
  const auto it = st.metadata.find("attnlab_train");
  AL_CHECK(it != st.metadata.end(), "checkpoint has no training state");
  return parse_json_object(it->second, "checkpoint training state");
}

int translation_limit(size_t src_len, int max_len) {
  return int(std::min<size_t>(size_t(std::max(1, max_len)), 2 * src_len + 10));
}

BleuScore evaluate_bleu(Model& m, const ParallelCorpus& test, const Bpe& bpe, int beam, float alpha,
                        int limit, int max_len, std::vector<std::string>* hyps_out) {
  const size_t n = limit > 0 ? std::min(test.size(), size_t(limit)) : test.size();
  AL_CHECK(n > 0, "no test pairs to evaluate");
  std::vector<std::string> hyps, refs;
  const size_t chunk = 64;
  for (size_t i = 0; i < n; i += chunk) {
    std::vector<std::vector<int32_t>> srcs;
    for (size_t k = i; k < std::min(n, i + chunk); ++k) {
      auto [src_ids, tgt_ids] = test.ids(k);
      srcs.push_back(std::move(src_ids));
      refs.push_back(test.text(k).second);
    }
    if (beam > 1) {
      for (const auto& s : srcs)
        hyps.push_back(
            bpe.decode(beam_decode(m, s, beam, translation_limit(s.size(), max_len), alpha)));
    } else {
      // greedy rows are independent: decode the chunk to its longest limit, cut each to its own
      size_t longest = 0;
      for (const auto& s : srcs) longest = std::max(longest, s.size());
      auto outs = greedy_decode(m, srcs, translation_limit(longest, max_len));
      for (size_t k = 0; k < outs.size(); ++k) {
        auto& out = outs[k];
        out.resize(std::min(out.size(), size_t(translation_limit(srcs[k].size(), max_len))));
        hyps.push_back(bpe.decode(out));
      }
    }
  }
  const BleuScore score = corpus_bleu(hyps, {refs});
  if (hyps_out) *hyps_out = std::move(hyps);
  return score;
}

namespace {
bool is_optimizer_tensor(const StTensor& t) { return t.name.rfind("optimizer.", 0) == 0; }
}  // namespace

bool strip_optimizer(const std::string& path) {
  SafeTensors st = read_safetensors(path);
  const auto end = std::remove_if(st.tensors.begin(), st.tensors.end(), is_optimizer_tensor);
  if (end == st.tensors.end()) return false;
  st.tensors.erase(end, st.tensors.end());
  write_safetensors_atomic(path, st);
  return true;
}

SafeTensors average_checkpoints(const std::vector<std::string>& paths) {
  AL_CHECK(!paths.empty(), "nothing to average");
  SafeTensors avg = read_safetensors(paths.back());
  avg.tensors.erase(std::remove_if(avg.tensors.begin(), avg.tensors.end(), is_optimizer_tensor),
                    avg.tensors.end());
  std::vector<std::vector<double>> sum;
  for (const StTensor& t : avg.tensors) sum.emplace_back(size_t(t.numel()), 0.0);
  for (const std::string& p : paths) {
    const SafeTensors st = read_safetensors(p);
    for (size_t k = 0; k < avg.tensors.size(); ++k) {
      const StTensor* t = st.find(avg.tensors[k].name);
      AL_CHECK(t && t->shape == avg.tensors[k].shape,
               p << " does not match " << paths.back() << " at tensor " << avg.tensors[k].name);
      const std::vector<float> v = t->to_f32();
      for (size_t i = 0; i < v.size(); ++i) sum[k][i] += v[i];
    }
  }
  SafeTensors out;
  out.metadata = avg.metadata;
  for (size_t k = 0; k < avg.tensors.size(); ++k) {
    std::vector<float> mean(sum[k].size());
    for (size_t i = 0; i < mean.size(); ++i) mean[i] = float(sum[k][i] / double(paths.size()));
    out.add_f32(avg.tensors[k].name, avg.tensors[k].shape, mean.data());
  }
  return out;
}

}  // namespace attnlab
