// The table of attn subcommands: one line each.
#include "cli/commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "models/memory.hpp"

namespace attnlab::cli {

namespace {

const Command kCommands[] = {
    {"train",
     "--model transformer --task reverse [--config c.json | --d-model N --heads N ...] --steps N "
     "--seed S --out ckpt.safetensors [--resume ckpt.safetensors]\n       attn train --model "
     "rnnsearch|rnnencdec|pointer --task dates|phrases|convex-hull|tsp|sort [--n N | --n-min A "
     "--n-max B] [--hidden H --glimpse] --steps N --out C\n       attn train --task parallel "
     "--train a.tsv [--valid b.tsv] [--preset small|base|big] [--vocab-size N --max-tokens N "
     "--steps N --save-every N --keep K --device cpu|cuda] --out C [--resume "
     "C.ckpt/step-N.safetensors]\n       attn train --help  (the model and training flags, with "
     "their bounds)",
     cmd_train},
    {"eval",
     "--checkpoint C --task T [--samples N] [--seed S] | --checkpoint C --test test.tsv [--beam 4 "
     "--alpha 0.6 --limit N --hyp out.txt --threads N --device cpu|cuda] [--allow-nonfinite] | "
     "--test test.tsv --copy-source [--hyp out.txt]",
     cmd_eval},
    {"forward", "--checkpoint C --src \"5 6 7\" --tgt \"1 5 6\" [--allow-nonfinite]", cmd_forward},
    {"grad",
     "--checkpoint C --src \"...\" --tgt-in \"...\" --tgt-out \"...\" [--label-smoothing x] --out "
     "grads.safetensors",
     cmd_grad},
    {"average", "--out avg.safetensors (--inputs a,b,... | --dir run.ckpt [--last 5])",
     cmd_average},
    {"export", "--checkpoint C --out D [--half]  (no optimizer state; --half: float16 tensors)",
     cmd_export},
    {"translate",
     "--checkpoint C (--src \"ids\" | --text \"sentence\" | --input FILE [--limit N]) [--beam K] "
     "[--alpha A] [--max-len N] [--threads N] [--allow-nonfinite]",
     cmd_translate},
    {"bench", "[--config S|M] [--threads N] [--seconds s]", cmd_bench},
    {"align", "--checkpoint rnnsearch.safetensors --src \"Saturday, 25 December 2021\"", cmd_align},
    {"point", "--checkpoint pointer.safetensors --points \"x1,y1 x2,y2 ...\" [--unconstrained]",
     cmd_point},
    {"bench-rnn", "[--reps N]  ms per training step of RNNsearch and Ptr-Net, as JSON rows",
     cmd_bench_rnn},
};

}  // namespace

const Command* find_command(const char* name) {
  for (const Command& c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void check_model_fits(const nlohmann::json& model_cfg, int B, int S, int T) {
  check_model_config(model_cfg);
  attnlab::check_fits(attnlab::estimate_size(model_cfg, B, std::max(S, 1), std::max(T, 1)),
                      "this model");
}

void check_train_number(double v, const char* what, double lo, double hi, bool lo_open) {
  AL_CHECK(std::isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi,
           what << " = " << v << " is not a finite number in " << (lo_open ? "(" : "[") << lo
                << ", " << hi << "]");
}

void print_usage() {
  std::fprintf(stderr, "usage: attn <command> [flags]\n");
  for (const Command& c : kCommands) std::fprintf(stderr, "  attn %s %s\n", c.name, c.usage);
}

}  // namespace attnlab::cli
