// The table of attn subcommands: one line each.
#include "cli/commands.hpp"

#include <cstdio>
#include <cstring>

namespace attnlab::cli {

namespace {

const Command kCommands[] = {
    {"train", "--model transformer --task reverse [--config c.json | --d-model N --heads N ...] --steps N --seed S --out ckpt.safetensors [--resume ckpt.safetensors] | --task parallel --train a.tsv [--valid b.tsv] [--preset small|base|big] [--vocab-size N --max-tokens N --steps N --save-every N --keep K --device cpu|cuda] --out C [--resume C.ckpt/step-N.safetensors]", cmd_train},
    {"eval", "--checkpoint C --task T [--samples N] [--seed S] | --checkpoint C --test test.tsv [--beam 4 --alpha 0.6 --limit N --device cpu|cuda]", cmd_eval},
    {"forward", "--checkpoint C --src \"5 6 7\" --tgt \"1 5 6\"", cmd_forward},
    {"grad", "--checkpoint C --src \"...\" --tgt-in \"...\" --tgt-out \"...\" [--label-smoothing x] --out grads.safetensors", cmd_grad},
    {"average", "--out avg.safetensors (--inputs a,b,... | --dir run.ckpt [--last 5])", cmd_average},
    {"translate", "--checkpoint C --src \"...\" [--beam K] [--max-len N]", cmd_translate},
};

}  // namespace

const Command* find_command(const char* name) {
  for (const Command& c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void print_usage() {
  std::fprintf(stderr, "usage: attn <command> [flags]\n");
  for (const Command& c : kCommands) std::fprintf(stderr, "  attn %s %s\n", c.name, c.usage);
}

}  // namespace attnlab::cli
