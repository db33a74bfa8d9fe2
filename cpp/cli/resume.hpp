// attn train --resume C: the checkpoint a run continues from, read once. Toy-task and recurrent
// runs record in their training state the training flags they resolved ("train_flags", flag ->
// value) and the step they were to end at ("last_step"); a resumed run takes those flags as
// defaults (flags given again win) and, without --steps, trains on to that step. It restores
// Adam's moments, the step and the generators (Trainer::restore_state); a checkpoint without
// optimizer state (attn export, --weights-only, an older attn) is refused unless
// --fresh-optimizer asks to continue from its weights with a new Adam.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/args.hpp"
#include "io/safetensors.hpp"
#include "models/model.hpp"

namespace attnlab::cli {

struct ResumePoint {
  std::string path;
  SafeTensors st;
  nlohmann::json state = nlohmann::json::object();  // "attnlab_train" ({} when absent)
  std::unique_ptr<Model> model;
  int step = 0;  // the last step the checkpoint's run took
};

// Errors name the path.
ResumePoint read_resume_point(const std::string& path);
// The recorded "train_flags" as defaults of a (flags given win).
void resume_defaults(Args& a, const ResumePoint& r);
// --steps of a resumed run: given, or the steps left to the recorded last step.
int resume_steps(Args& a, const ResumePoint& r);
// A flag's value as a flag string ("0.001", "noam") for "train_flags".
std::string flag_value(const nlohmann::json& v);
// Whether the run continues with Adam's state (true) or a fresh Adam (--fresh-optimizer; an
// Error when the checkpoint has none and the flag is absent).
bool resume_optimizer(Args& a, const ResumePoint& r);

}  // namespace attnlab::cli
