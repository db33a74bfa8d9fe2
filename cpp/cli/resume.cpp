// Continuing a run from its checkpoint (see resume.hpp).
#include "cli/resume.hpp"

#include "cli/train_flags.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "kernels/kernels.hpp"
#include "train/train_state.hpp"

namespace attnlab::cli {

ResumePoint read_resume_point(const std::string& path) {
  ResumePoint r;
  r.path = path;
  try {
    r.st = read_safetensors(path);
    r.model = model_from_safetensors(r.st, cpu_kernels(), &r.state);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  const nlohmann::json step = r.state.value("step", nlohmann::json(0));
  AL_CHECK(step.is_number_integer() && step.get<long>() >= 0 && step.get<long>() < (1L << 30),
           path << ": the training state's step is " << step.dump() << ", not a step count");
  r.step = step.get<int>();
  return r;
}

std::string flag_value(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void resume_defaults(Args& a, const ResumePoint& r) {
  const nlohmann::json flags = r.state.value("train_flags", nlohmann::json::object());
  AL_CHECK(flags.is_object(), r.path << ": the training state's \"train_flags\" is not an object");
  std::vector<std::pair<std::string, std::string>> d;
  for (auto it = flags.begin(); it != flags.end(); ++it) {
    AL_CHECK(it.value().is_string() || it.value().is_number(),
             r.path << ": train_flags." << it.key() << " is " << it.value().dump());
    d.emplace_back(it.key(), flag_value(it.value()));
  }
  a.defaults(d);
}

int resume_steps(Args& a, const ResumePoint& r) {
  if (a.has("steps")) return train_int(a, "steps", 1000);
  const nlohmann::json last = r.state.value("last_step", nlohmann::json());
  if (!last.is_number_integer()) return train_int(a, "steps", 1000);  // older file
  AL_CHECK(last.get<long>() > r.step,
           r.path << ": its run ended at step " << r.step << ": give --steps N to train N more");
  return int(last.get<long>() - r.step);
}

bool resume_optimizer(Args& a, const ResumePoint& r) {
  if (a.flag("fresh-optimizer")) return false;
  AL_CHECK(has_optimizer_state(r.st) && r.state.contains("data_rng"),
           r.path << " holds no optimizer state (written by attn export, with --weights-only or by"
                     " an older attn), so the run cannot continue exactly: --fresh-optimizer"
                     " continues from its weights with a new Adam");
  return true;
}

}  // namespace attnlab::cli
