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
      adam_(m.params()),
      step_(std::max(1, o.first_step)) {
  AL_CHECK(o.batch >= 1, "batch size must be at least 1");
  o.dp.require_valid();
  AL_CHECK(task.src_vocab() <= m.src_vocab() && task.tgt_vocab() <= m.out_vocab(),
           "task " << task.name() << " needs vocabularies " << task.src_vocab() << "/"
                   << task.tgt_vocab() << ", the model has " << m.src_vocab() << "/"
                   << m.out_vocab());
}

StepInfo Trainer::step() {
  std::vector<Example> ex = sample_many(task_, data_, Split::Train, o_.batch * o_.dp.size);
  if (o_.dp.size > 1)
    ex = std::vector<Example>(ex.begin() + long(o_.dp.rank) * o_.batch,
                              ex.begin() + long(o_.dp.rank + 1) * o_.batch);
  const Batch b = make_batch(ex);
  const StepOptions so{step_, o_.schedule.at(step_), o_.clip, o_.label_smoothing};
  const StepInfo s = train_step(m_, adam_, b, so, &dropout_, o_.dp.sync);
  ++step_;
  return s;
}

}  // namespace attnlab
