// The training loop (see trainer.hpp).
#include "train/trainer.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace attnlab {

Trainer::Trainer(Model& m, const Task& task, TrainOptions o)
    : m_(m),
      task_(task),
      o_(o),
      data_(o.seed),
      dropout_((o.seed ^ 0x5DEECE66Dull) + uint64_t(o.dp.rank) * 0x9E3779B97F4A7C15ull),
      adam_(m.params(), o.adam),
      step_(std::max(1, o.first_step)) {
  AL_CHECK(o.batch >= 1, "batch size must be at least 1");
  o.dp.require_valid();
  AL_CHECK(task.input_dim() == m.input_dim(), "task "
                                                  << task.name() << " has " << task.input_dim()
                                                  << " float features per input, the model reads "
                                                  << m.input_dim() << " (0: token ids)");
  if (task.input_dim() == 0)
    AL_CHECK(task.src_vocab() <= m.src_vocab() && task.tgt_vocab() <= m.out_vocab(),
             "task " << task.name() << " needs vocabularies " << task.src_vocab() << "/"
                     << task.tgt_vocab() << ", the model has " << m.src_vocab() << "/"
                     << m.out_vocab());
}

TrainOptions pointer_train_options() {
  TrainOptions o;
  o.batch = 128;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e-3f;
  o.clip = 2.f;
  o.adam = {0.9f, 0.999f, 1e-8f, 0.f};
  return o;
}

StepInfo Trainer::step() {
  const Batch b = task_.sample_batch(data_, Split::Train, o_.batch * o_.dp.size,
                                     o_.dp.rank * o_.batch, o_.batch);
  const StepOptions so{step_, o_.schedule.at(step_), o_.clip, o_.label_smoothing};
  const StepInfo s = train_step(m_, adam_, b, so, &dropout_, o_.dp.sync);
  ++step_;
  return s;
}

}  // namespace attnlab
