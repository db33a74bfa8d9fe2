// attn train's flag table (see train_flags.hpp).
#include "cli/train_flags.hpp"

#include <cfloat>
#include <climits>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "core/check.hpp"
#include "models/model.hpp"

namespace attnlab::cli {

namespace {

constexpr double kNoBound = 0;  // model flags: the kind's config holds the bound
constexpr double kMaxSeed = 2147483647;

const std::vector<TrainFlag> kTrainFlags = {
    // model flags: config keys of the kind
    {"d-model", FlagType::Int, "d_model", nullptr, kNoBound, kNoBound, "Transformer width"},
    {"heads", FlagType::Int, "heads", nullptr, kNoBound, kNoBound, "attention heads"},
    {"d-ff", FlagType::Int, "d_ff", nullptr, kNoBound, kNoBound, "feed-forward width"},
    {"enc-layers", FlagType::Int, "enc_layers", nullptr, kNoBound, kNoBound, "encoder layers"},
    {"dec-layers", FlagType::Int, "dec_layers", nullptr, kNoBound, kNoBound, "decoder layers"},
    {"layers", FlagType::Int, "enc_layers", "dec_layers", kNoBound, kNoBound,
     "encoder and decoder layers"},
    {"max-len", FlagType::Int, "max_len", nullptr, kNoBound, kNoBound,
     "longest sequence (default: the task's; --task parallel: the longest sentence kept, in "
     "[4, 4096], the model's max_len is 2 more)"},
    {"dropout", FlagType::Number, "dropout", nullptr, kNoBound, kNoBound, "dropout rate"},
    {"attention-dropout", FlagType::Number, "attention_dropout", nullptr, kNoBound, kNoBound,
     "dropout on the attention weights (default: --dropout)"},
    {"activation-dropout", FlagType::Number, "activation_dropout", nullptr, kNoBound, kNoBound,
     "dropout on the feed-forward hidden units (default: --dropout)"},
    {"enc-layer-drop", FlagType::Number, "enc_layer_drop", nullptr, kNoBound, kNoBound,
     "LayerDrop: chance an encoder layer is skipped in a training step"},
    {"dec-layer-drop", FlagType::Number, "dec_layer_drop", nullptr, kNoBound, kNoBound,
     "LayerDrop: chance a decoder layer is skipped in a training step"},
    {"layer-drop", FlagType::Number, "enc_layer_drop", "dec_layer_drop", kNoBound, kNoBound,
     "LayerDrop on both stacks"},
    {"norm-first", FlagType::Bool, "norm_first", nullptr, kNoBound, kNoBound, "pre-norm sublayers"},
    {"tie-embeddings", FlagType::Bool, "tie_embeddings", nullptr, kNoBound, kNoBound,
     "share embeddings and output projection"},
    {"activation", FlagType::String, "activation", nullptr, kNoBound, kNoBound, "relu | gelu"},
    {"pos-encoding", FlagType::String, "pos_encoding", nullptr, kNoBound, kNoBound,
     "sinusoidal | learned"},
    {"emb", FlagType::Int, "emb", nullptr, kNoBound, kNoBound, "token embedding size"},
    {"hidden", FlagType::Int, "hidden", nullptr, kNoBound, kNoBound, "recurrent hidden units"},
    {"attn", FlagType::Int, "attn", nullptr, kNoBound, kNoBound,
     "attention units (default: hidden)"},
    {"score", FlagType::String, "score", nullptr, kNoBound, kNoBound,
     "attention score (rnnsearch: additive | dot; luong: dot | general | concat)"},
    {"encoder", FlagType::String, "encoder", nullptr, kNoBound, kNoBound,
     "rnnsearch: bigru | gru; pointer: lstm | rpw"},
    {"glimpse", FlagType::Bool, "glimpse", nullptr, kNoBound, kNoBound,
     "one glimpse before each pointer step"},
    {"process-steps", FlagType::Int, "process_steps", nullptr, kNoBound, kNoBound,
     "read-process-write steps"},
    {"embed", FlagType::Int, "embed", nullptr, kNoBound, kNoBound,
     "learned input embedding (0: raw features)"},
    // training flags: one bound each, on every path
    {"steps", FlagType::Int, nullptr, nullptr, 1, 100000000, "optimizer steps (default 1000)"},
    {"seed", FlagType::Int, nullptr, nullptr, 0, kMaxSeed, "initialisation and data seed"},
    {"batch", FlagType::Int, nullptr, nullptr, 1, 1 << 16,
     "rows per step and rank (default: the kind's)"},
    {"lr", FlagType::Number, nullptr, nullptr, 0, FLT_MAX,
     "learning rate (default: the kind's; a diverging rate stops the run)"},
    {"lr-factor", FlagType::Number, nullptr, nullptr, 0, 1000, "Noam schedule factor"},
    {"warmup", FlagType::Int, nullptr, nullptr, 1, 1 << 24, "Noam warm-up steps"},
    {"clip", FlagType::Number, nullptr, nullptr, 0, 1e9,
     "gradient-norm clip (default: the kind's)"},
    {"label-smoothing", FlagType::Number, nullptr, nullptr, 0, 0.99, "label smoothing"},
    {"word-dropout", FlagType::Number, nullptr, nullptr, 0, 0.9,
     "--task parallel: source words dropped"},
    {"lexicon-share", FlagType::Number, nullptr, nullptr, 0, 0.95,
     "--task parallel: share of dictionary items (sources tagged <lex>) in every batch "
     "(default: their natural share)"},
    {"max-tokens", FlagType::Int, nullptr, nullptr, 1, 1 << 24,
     "--task parallel: padded tokens per batch and rank"},
    {"vocab-size", FlagType::Int, nullptr, nullptr, 300, 1 << 20,
     "--task parallel: BPE vocabulary size"},
    {"save-every", FlagType::Int, nullptr, nullptr, 1, 1 << 30,
     "--task parallel and the recurrent kinds: steps between checkpoints (OUT.ckpt/step-N)"},
    {"keep", FlagType::Int, nullptr, nullptr, 1, 1000,
     "--task parallel and the recurrent kinds: periodic checkpoints kept"},
    {"keep-optimizer", FlagType::Int, nullptr, nullptr, 1, 1000,
     "--task parallel: the newest checkpoints that keep Adam's moments (default: all kept; older "
     "ones keep the weights, a third of the size)"},
    {"eval-sentences", FlagType::Int, nullptr, nullptr, 0, 1 << 24,
     "--task parallel: validation sentences scored after training"},
    {"lr-final", FlagType::Number, nullptr, nullptr, 0, 10,
     "pointer: learning rate reached at the last step"},
    {"decay-from", FlagType::Int, nullptr, nullptr, 1, 100000000,
     "pointer: step the decay starts at"},
    {"eval-every", FlagType::Int, nullptr, nullptr, 0, 1 << 30,
     "pointer: steps between held-out evaluations"},
    {"beam", FlagType::Int, nullptr, nullptr, 1, 1024, "pointer: beam of the evaluations"},
    {"n", FlagType::Int, nullptr, nullptr, 1, 1000, "points or words per example"},
    {"n-min", FlagType::Int, nullptr, nullptr, 1, 1000, "fewest points or words"},
    {"n-max", FlagType::Int, nullptr, nullptr, 1, 1000, "most points or words"},
    {"eval-samples", FlagType::Int, nullptr, nullptr, 0, 1 << 20,
     "held-out samples scored after training"},
    {"eval-seed", FlagType::Int, nullptr, nullptr, 0, kMaxSeed, "seed of the held-out sets"},
    {"log-every", FlagType::Int, nullptr, nullptr, 1, 1 << 30, "steps between log lines"},
    {"threads", FlagType::Int, nullptr, nullptr, 1, 256, "CPU threads"},
    {"thread-split", FlagType::String, nullptr, nullptr, kNoBound, kNoBound,
     "how the threads share a step: ranks (replicas on row shares of the batch), kernels (each "
     "kernel call split), both (ranks, each splitting its kernel calls on threads / ranks "
     "threads) or auto (a cost model picks; the log says which)"},
};

const TrainFlag& training_flag(const char* name) {
  const TrainFlag& f = train_flag(name);
  if (f.key) throw std::logic_error(std::string("--") + name + " is a model flag");
  return f;
}

std::string range_text(double lo, double hi) {
  std::ostringstream s;
  s << std::setprecision(10) << "[" << lo << ", " << hi << "]";
  return s.str();
}

}  // namespace

const std::vector<TrainFlag>& train_flags() { return kTrainFlags; }

const TrainFlag& train_flag(const std::string& name) {
  for (const TrainFlag& f : kTrainFlags)
    if (name == f.name) return f;
  throw std::logic_error("attn train's flag table lacks --" + name);
}

int train_int(Args& a, const char* name, int def) {
  const TrainFlag& f = training_flag(name);
  return a.integer(name, def, int(f.lo), int(f.hi));
}

double train_number(Args& a, const char* name, double def) {
  const TrainFlag& f = training_flag(name);
  return a.number(name, def, f.lo, f.hi);
}

void check_train_value(double v, const char* name, const char* what) {
  const TrainFlag& f = training_flag(name);
  AL_CHECK(std::isfinite(v) && v >= f.lo && v <= f.hi,
           what << " = " << v << " is not a finite number in " << range_text(f.lo, f.hi));
}

void apply_model_flags(Args& a, const std::string& kind, nlohmann::json& cfg,
                       const std::vector<std::string>& skip) {
  const ConfigKeys& keys = config_keys(kind);
  for (const TrainFlag& f : kTrainFlags) {
    if (!f.key || !a.given(f.name)) continue;
    bool skipped = false;
    for (const std::string& s : skip) skipped = skipped || s == f.name;
    if (skipped) continue;
    AL_CHECK(find_config_key(keys, f.key), "flag --" << f.name << " is not an option of model "
                                                     << kind
                                                     << " (attn train --help lists each kind's)");
    nlohmann::json v;
    switch (f.type) {
      case FlagType::Int:
        v = a.integer(f.name, 0, INT_MIN, INT_MAX);
        break;
      case FlagType::Number:
        v = a.number(f.name, 0, -DBL_MAX, DBL_MAX);
        break;
      case FlagType::Bool:
        v = a.flag(f.name);
        break;
      case FlagType::String:
        v = a.str(f.name);
        break;
    }
    cfg[f.key] = v;
    if (f.key2) cfg[f.key2] = v;
  }
}

std::string train_flags_help() {
  std::ostringstream s;
  s << "attn train flags (model flags: bounds of each kind's config; training flags: one bound "
       "on every path)\n";
  for (const TrainFlag& f : kTrainFlags) {
    s << "  --" << f.name
      << (f.type == FlagType::Int      ? " N"
          : f.type == FlagType::Number ? " X"
          : f.type == FlagType::String ? " S"
                                       : "")
      << "  " << f.help;
    if (!f.key) {
      s << "  " << range_text(f.lo, f.hi) << "\n";
      continue;
    }
    // the kinds that take the key, those with the same bound together
    std::vector<std::pair<std::string, std::string>> groups;  // bound text, kinds
    for (const std::string& kind : model_kinds()) {
      const ConfigKey* k = find_config_key(config_keys(kind), f.key);
      if (!k) continue;
      const std::string bound = k->numeric ? " " + range_text(k->lo, k->hi) : "";
      bool placed = false;
      for (auto& g : groups)
        if (g.first == bound) g.second += ", " + kind, placed = true;
      if (!placed) groups.emplace_back(bound, kind);
    }
    s << "  (";
    for (size_t i = 0; i < groups.size(); ++i)
      s << (i ? "; " : "") << groups[i].second << groups[i].first;
    s << ")\n";
  }
  return s.str();
}

}  // namespace attnlab::cli
