// attn eval: held-out loss, token accuracy (teacher forcing) and sequence accuracy (greedy
// decoding) of a checkpoint on a task, as one JSON object on stdout.
#include <cstdio>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "core/json.hpp"
#include "io/checkpoint.hpp"
#include "train/trainer.hpp"

namespace attnlab::cli {

int cmd_eval(Args& a) {
  if (a.has("test")) return cmd_eval_parallel(a);
  const std::string path = a.need("checkpoint");
  if (kind_info_of(checkpoint_config(read_safetensors(path))).recurrent) return cmd_eval_rnn(a);
  const bool allow_nonfinite = a.flag("allow-nonfinite");
  const std::string task_name = a.need("task");
  const int samples = a.integer("samples", 1000, 1, 1 << 22);
  const uint64_t seed = uint64_t(a.integer("seed", 12345, 0, 2147483647));
  nlohmann::json opts = nlohmann::json::object();
  if (a.has("task-options")) {
    opts = parse_json_object(a.str("task-options"), "--task-options");
  }
  set_num_threads(a.integer("threads", 1, 1, 256));
  a.finish();
  nlohmann::json state;
  auto model = load_checkpoint(path, cpu_kernels(), &state, allow_nonfinite);
  if (!a.has("task-options") && state.value("task", "") == task_name &&
      state.contains("task_options"))
    opts = state["task_options"];
  const auto task = make_task(task_name, opts);
  AL_CHECK(task->src_vocab() <= model->src_vocab() && task->tgt_vocab() <= model->out_vocab(),
           "task " << task_name << " does not fit the checkpoint's vocabularies");
  const EvalResult r = evaluate(*model, *task, samples, seed);
  std::printf("%s\n", nlohmann::json({{"loss", r.loss},
                                      {"token_accuracy", r.token_accuracy},
                                      {"sequence_accuracy", r.sequence_accuracy},
                                      {"samples", r.samples}})
                          .dump()
                          .c_str());
  return 0;
}

}  // namespace attnlab::cli
