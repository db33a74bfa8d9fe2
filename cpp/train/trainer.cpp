// The training loop (see trainer.hpp).
#include "train/trainer.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "train/train_state.hpp"

namespace attnlab {

namespace {

// The dropout stream of data-parallel rank r (rank 0's is the single-process one).
uint64_t dropout_seed(uint64_t seed, int rank) {
  return (seed ^ 0x5DEECE66Dull) + uint64_t(rank) * 0x9E3779B97F4A7C15ull;
}

}  // namespace

Trainer::Trainer(Model& m, const Task& task, TrainOptions o)
    : m_(m),
      task_(task),
      o_(o),
      data_(o.seed),
      dropout_(dropout_seed(o.seed, o.dp.rank)),
      // a replica (update false, or a sharded update's rank > 0) holds no moments of its own
      adam_(m.params(), o.adam, o.dp.update && !(o.dp.shard_update && o.dp.rank > 0)),
      step_(std::max(1, o.first_step)) {
  AL_CHECK(o.batch >= 1, "batch size must be at least 1");
  o.dp.require_valid();
  AL_CHECK(!o.dp.split_batch || o.batch >= o.dp.size,
           "a batch of " << o.batch << " rows does not split over " << o.dp.size << " ranks");
  AL_CHECK(task.input_dim() == m.input_dim(), "task "
                                                  << task.name() << " has " << task.input_dim()
                                                  << " float features per input, the model reads "
                                                  << m.input_dim() << " (0: token ids)");
  if (task.input_dim() == 0)
    AL_CHECK(task.src_vocab() <= m.src_vocab() && task.tgt_vocab() <= m.out_vocab(),
             "task " << task.name() << " needs vocabularies " << task.src_vocab() << "/"
                     << task.tgt_vocab() << ", the model has " << m.src_vocab() << "/"
                     << m.out_vocab());
  if (o.word_dropout > 0) {
    AL_CHECK(task.input_dim() == 0,
             "word dropout needs token inputs; task " << task.name() << " reads points");
    AL_CHECK(o.unk >= 0 && o.unk < m.src_vocab() && o.unk < m.out_vocab(),
             "word dropout needs an unknown-word id inside both vocabularies ("
                 << m.src_vocab() << "/" << m.out_vocab() << "), got " << o.unk);
  }
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
  const Mark before{data_.state(), dropout_.state()};
  if (o_.device) {
    if (marks_.empty()) marks_from_ = step_;
    marks_.push_back(before);
  }
  try {
    const StepInfo s = draw_and_step();
    ++step_;
    return s;
  } catch (...) {  // a step that was not finite: the generators are as before it
    if (o_.device && !marks_.empty()) marks_.pop_back();
    data_.set_state(before.data);
    dropout_.set_state(before.dropout);
    throw;
  }
}

StepInfo Trainer::draw_and_step() {
  Batch b;
  if (o_.dp.split_batch) {  // the global batch is o_.batch rows; this rank takes its share
    long first = 0, last = o_.batch;
    rank_rows(o_.batch, o_.dp.rank, o_.dp.size, &first, &last);
    b = task_.sample_batch(data_, Split::Train, o_.batch, int(first), int(last - first));
  } else {
    b = task_.sample_batch(data_, Split::Train, o_.batch * o_.dp.size, o_.dp.rank * o_.batch,
                           o_.batch);
  }
  if (o_.word_dropout > 0) {
    Rng words = word_dropout_rng(o_.seed, step_, o_.dp.rank);
    drop_words(b, o_.word_dropout, o_.word_dropout, o_.unk, words);
  }
  StepOptions so{step_, o_.schedule.at(step_), o_.clip, o_.label_smoothing, o_.device};
  so.update = o_.dp.update;
  if (o_.dp.shard_update && o_.dp.size > 1) {
    so.shard = o_.dp.rank;
    so.shards = o_.dp.size;
  }
  return train_step(m_, adam_, b, so, &dropout_, o_.dp.sync);
}

void Trainer::rewind_to(int step) {
  AL_CHECK(step >= 1 && step <= step_, "rewind_to: step " << step << " was not taken");
  AL_CHECK(step >= marks_from_ && step - marks_from_ < int(marks_.size()),
           "rewind_to: step " << step << " is not among the unsettled steps");
  const Mark& m = marks_[size_t(step - marks_from_)];
  data_.set_state(m.data);
  dropout_.set_state(m.dropout);
  marks_.clear();
  adam_.set_steps(adam_.steps() - (step_ - step));
  step_ = step;
}

void Trainer::save_state(SafeTensors& st, nlohmann::json& state) const {
  save_adam(adam_, m_.params(), st, state);
  state["step"] = step_ - 1;
  state["data_rng"] = rng_to_json(data_);
  state["dropout_rng"] = rng_to_json(dropout_);
}

nlohmann::json Trainer::dropout_state() const { return rng_to_json(dropout_); }

void Trainer::set_dropout_state(const nlohmann::json& j) { rng_from_json(dropout_, j, "dropout"); }

void Trainer::restore_state(const SafeTensors& st, const nlohmann::json& state) {
  AL_CHECK(state.is_object() && state.contains("step") && state["step"].is_number_integer() &&
               state["step"].get<long>() >= 0 && state["step"].get<long>() < (1L << 30),
           "the checkpoint's training state lacks its step");
  AL_CHECK(state.contains("data_rng") && state.contains("dropout_rng"),
           "the checkpoint's training state lacks the data and dropout generators");
  restore_adam(adam_, m_.params(), st, state);
  step_ = state["step"].get<int>() + 1;
  rng_from_json(data_, state["data_rng"], "data");
  if (o_.dp.rank == 0)
    rng_from_json(dropout_, state["dropout_rng"], "dropout");
  else  // rank 0's stream is the one saved: the others draw fresh ones, distinct per step
    dropout_.reseed(dropout_seed(o_.seed, o_.dp.rank) + uint64_t(step_) * 0xD1B54A32D192ED03ull);
}

}  // namespace attnlab
