// The attn subcommands. Each lives in its own file and is listed once in commands.cpp; a
// command reads its flags through Args, prints results on stdout, and reports failures by
// throwing attnlab::Error (main prints one line and exits non-zero).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "kernels/kernels.hpp"

namespace attnlab::cli {

struct ResumePoint;

struct Command {
  const char* name;
  const char* usage;
  int (*run)(Args& args);
};

const Command* find_command(const char* name);
void print_usage();

// Checks every command runs before building or training anything (commands.cpp):
// the estimated memory of a model config with one batch of B x S / B x T tokens fits the
// budget (attnlab::check_fits: one line naming both sizes in MB);
void check_model_fits(const nlohmann::json& model_cfg, int B, int S, int T);
// a learning rate, schedule or regulariser value is a finite number in its range (`what`
// names the flag or key).
void check_train_number(double v, const char* what, double lo, double hi, bool lo_open = false);

int cmd_train(Args& a);
int cmd_eval(Args& a);
int cmd_forward(Args& a);
int cmd_grad(Args& a);
int cmd_translate(Args& a);
int cmd_bench(Args& a);
// Recurrent models (cmd_rnn.cpp): train/eval dispatch here when --model or the checkpoint is a
// kind the registry marks recurrent (train --resume: the checkpoint's model, read by cmd_train).
bool is_recurrent_kind(const std::string& kind);
int cmd_train_rnn(Args& a, ResumePoint* resume = nullptr);
int cmd_eval_rnn(Args& a);
int cmd_align(Args& a);
int cmd_point(Args& a);
int cmd_bench_rnn(Args& a);
// Real parallel corpora (cmd_parallel.cpp): reached from train/eval, and `attn average`.
int cmd_train_parallel(Args& a);
int cmd_eval_parallel(Args& a);
int cmd_average(Args& a);
// The kernels of --device cpu|cuda, and the periodic checkpoints of a run's folder, oldest first.
const KernelTable& device_table(Args& a);
std::vector<std::string> list_checkpoints(const std::string& dir);
// A run's periodic checkpoints (--save-every): OUT.ckpt/step-000000123.safetensors.
std::string ckpt_dir(const std::string& out);
std::string ckpt_path(const std::string& out, int step);
// A checkpoint for inference and the page: no optimizer state, optionally float16 (cmd_export.cpp).
int cmd_export(Args& a);

}  // namespace attnlab::cli
