// The one table of `attn train`'s model and training flags, read by all three training paths
// (cmd_train: the Transformers, cmd_rnn: the recurrent kinds, cmd_parallel: the corpus
// Transformer) and printed by `attn train --help`.
// - A model flag sets config keys of the kind; its bound is the kind's typed config's
//   (ConfigKey, models/config.hpp): the value goes into the config unchecked but for its type,
//   and the config's own check rejects it, with the config's message, the same for every kind.
//   A model flag that the kind's config does not take is left unread (finish(): unknown flag).
// - A training flag has one bound here, the same on every path that reads it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "cli/args.hpp"

namespace attnlab::cli {

enum class FlagType { Int, Number, Bool, String };

struct TrainFlag {
  const char* name;  // without the leading --
  FlagType type;
  // Model flags: the config keys set (the second one or null); training flags: null.
  const char* key;
  const char* key2;
  double lo, hi;  // training flags' bound (model flags: the kind's config's)
  const char* help;
};

const std::vector<TrainFlag>& train_flags();
const TrainFlag& train_flag(const std::string& name);  // a std::logic_error for a missing row

// A training flag's value within the table's bound, or def when absent.
int train_int(Args& a, const char* name, int def);
double train_number(Args& a, const char* name, double def);
// A value from elsewhere (a resumed checkpoint) checked against the table's bound of `name`.
void check_train_value(double v, const char* name, const char* what);

// Writes the model flags given on the command line that `kind`'s config takes into cfg (typed,
// not range-checked: check_model_config does that). Names in `skip` are left to the caller.
void apply_model_flags(Args& a, const std::string& kind, nlohmann::json& cfg,
                       const std::vector<std::string>& skip = {});

// The table as help text: each flag, its help, and its bound (model flags: per kind).
std::string train_flags_help();

}  // namespace attnlab::cli
