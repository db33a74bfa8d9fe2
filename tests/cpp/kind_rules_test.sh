#!/usr/bin/env bash
# Model kinds stay inside cpp/models/ (issue 32). Outside it:
#  1. no raw read of a model option from the untyped config JSON (config().value("max_len", 0),
#     model_cfg.value("d_model", -1), config()["model"], ...): code asks the model's typed
#     accessors (Model::kind(), position_limit(), src_vocab(), ...) or the kind's typed config;
#  2. no kind named by a string literal (== "lm", "rnnsearch", ...): code asks the registry's
#     KindInfo (capabilities, training defaults) or the model.
# The kinds are the registry's rows (cpp/models/registry.cpp). Comments are not checked. The
# allow-list names each line that must stay, with its reason; a failure names file:line.
# Usage: kind_rules_test.sh <repository root>
set -u
ROOT="$1"
cd "$ROOT" || exit 1

# the kind names: the first string of each registry row's KindInfo ({"name", recurrent, ...})
kinds=$(grep -oE '^ *\{"[a-z0-9]+", (true|false),' cpp/models/registry.cpp | grep -oE '"[a-z0-9]+"' | tr -d '"')
n=$(echo "$kinds" | wc -w)
if [ "$n" -lt 4 ]; then echo "found $n kinds in cpp/models/registry.cpp ($kinds): the row format changed"; exit 1; fi
alt=$(echo $kinds | tr ' ' '|')

# a read on a model's config() or a model config (cfg, model_cfg, checkpoint_config(...)); the
# writes `cfg["key"] = ...` of code that builds a config are not reads
raw_read='(config\(\)|config\([^()]*(\([^()]*\))?\)|[^a-z_]cfg|model_cfg)[ ]*(\.(value|at|contains|find|count)[ ]*\(|\[)'
kind_literal="\"($alt)\""

# file prefix <TAB> a regex of the line <TAB> why it stays
allowed=$(cat <<'LIST'
cpp/cli/cmd_train.cpp	\{"model", "[a-z]+"\}	the reproduction recipes name the kind they train (data; the presets move out of C++)
cpp/cli/cmd_train.cpp	cfg\.contains\("max_len"\)	builds a config: the task's lengths fill an absent max_len
cpp/cli/cmd_train.cpp	cfg\.value\("model"	builds a config: --model, else the --config file's kind, else the default
cpp/api/model_session.cpp	cfg\.contains\("(model|max_len)"\)	builds a config: defaults for absent keys
cpp/api/model_session.cpp	: "transformer";	a session given neither model nor task trains the default kind
cpp/data/task.hpp	return "transformer";	a task names the kind it trains by default (Task::default_model)
cpp/data/point_task.hpp	return "pointer";	a point task names the kind it trains by default
cpp/data/point_task.cpp	cfg\["model"\] = "pointer";	pointer_config_for builds the pointer's config
cpp/cli/cmd_parallel.cpp	"transformer"	the corpus path's default kind (--model names another)
cpp/cli/cmd_bench.cpp	"transformer"	the benchmark times fixed Transformer configs
cpp/bench/	"(transformer|rnnsearch|pointer)"	benchmarks build fixed configs of the kinds they time
cpp/cli/train_flags.cpp	\{"encoder", FlagType	the config key "encoder" (rnnsearch's and the pointer's), not the kind
cpp/cli/cmd_train.cpp	\{"encoder", "rpw"\}	a recipe's --encoder flag (the pointer's read-process-write encoder)
cpp/api/model_session.cpp	model_cfg\.value\("max_len", 64\)	the size estimate of a config not yet checked (a config too large is refused as such, before validation), as estimate_model reads it
cpp/cli/cmd_parallel_eval.cpp	cfg\.contains\(k\) \? cfg\[k\]\.dump\(\)	attn average names the key where two checkpoints' configs differ, whatever the kind
cpp/cli/cmd_parallel.cpp	opts\[k\] = cfg\[k\];	the corpus run's options keep the architecture keys the preset and the flags set
cpp/io/checkpoint.cpp	config\(\)\.contains\(it\.key\(\)\)	config_difference compares two configs key by key, whatever the kind
LIST
)

fails=0
while IFS=: read -r file no code; do
  stripped="${code%%//*}"
  probe=$(sed -E 's/(cfg|config\(\))\[[^]=]+\] *=([^=])/\2/g' <<<"$stripped")
  why=""
  if [[ "$probe" =~ $raw_read ]]; then why="raw config read"
  elif [[ "$probe" =~ $kind_literal ]]; then why="kind named by a literal"
  fi
  [ -z "$why" ] && continue
  while IFS=$'\t' read -r apath aline _; do
    if [[ "$file" == "$apath"* ]] && [[ "$stripped" =~ $aline ]]; then why=""; break; fi
  done <<<"$allowed"
  if [ -n "$why" ]; then
    echo "$file:$no: $why: $(echo "$stripped" | sed 's/^ *//')"
    fails=$((fails + 1))
  fi
done < <(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
           -e "$raw_read" -e "$kind_literal" cpp | grep -v '^cpp/models/')
if [ $fails -ne 0 ]; then
  echo "$fails line(s) name a model kind or read its config outside cpp/models/ (kinds: $(echo $kinds))"
  exit 1
fi
echo "kind rules: no raw config read and no kind literal outside cpp/models/ (kinds: $(echo $kinds))"
