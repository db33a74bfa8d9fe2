// Thread ranks: the plan, the ranks and the replicated trainers (see thread_ranks.hpp).
#include "parallel/thread_ranks.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <system_error>
#include <thread>

#include "attnlab/error.hpp"
#include "kernels/threads.hpp"
#include "train/train_state.hpp"

namespace attnlab {

ThreadSplit parse_thread_split(const std::string& s) {
  if (s == "auto") return ThreadSplit::Auto;
  if (s == "ranks") return ThreadSplit::Ranks;
  if (s == "kernels") return ThreadSplit::Kernels;
  if (s == "both") return ThreadSplit::Both;
  throw Error("--thread-split must be auto, ranks, kernels or both, got " + s);
}

nlohmann::json ThreadPlan::to_json() const {
  return {{"mode", mode},
          {"ranks", ranks},
          {"kernel_threads", kernel_threads},
          {"ranks_speedup", std::round(ranks_speedup * 100) / 100},
          {"kernels_speedup", std::round(kernels_speedup * 100) / 100},
          {"both_speedup", std::round(both_speedup * 100) / 100},
          {"why", why}};
}

namespace {

// The cost model's speedup of k kernel threads on a step whose projection GEMM is w =
// tokens x width^2 (see thread_ranks.hpp).
double kernel_speedup(int k, double w) { return 1 + (k - 1) * 0.85 * w / (w + double(1 << 24)); }

// The best r ranks x k kernel threads (r in [2, max_r], k = threads / r >= 2) for the step's w:
// r * 0.92 times the kernel speedup of k threads on a rank's share (w / r). False when none.
bool best_both(int threads, int max_r, double w, int& r_out, int& k_out, double& speedup) {
  speedup = 0;
  for (int r = 2; r <= max_r; ++r) {
    const int k = threads / r;
    if (k < 2) break;
    const double s = r * 0.92 * kernel_speedup(k, w / r);
    if (s > speedup) {
      speedup = s;
      r_out = r;
      k_out = k;
    }
  }
  return speedup > 0;
}

}  // namespace

ThreadPlan plan_threads(int threads, ThreadSplit split, long rows, double tokens, int width) {
  ThreadPlan p;
  threads = std::max(1, threads);
  const int max_ranks = thread_ranks_supported() ? int(std::min<long>(threads, rows)) : 1;
  const int fit_ranks = int(std::max<long>(1, std::min<long>(max_ranks, rows / kMinRowsPerRank)));
  const double w = std::max(0.0, tokens) * double(width) * double(width);
  p.kernels_speedup = kernel_speedup(threads, w);
  p.ranks_speedup = fit_ranks > 1 ? fit_ranks * 0.92 : 1.0;
  int both_r = 1, both_k = 1;
  best_both(threads, fit_ranks, w, both_r, both_k, p.both_speedup);
  char buf[240];
  if (threads == 1) {
    p.mode = "one";
    p.why = "one thread";
    return p;
  }
  if (split == ThreadSplit::Kernels) {
    p.mode = "kernels";
    p.kernel_threads = threads;
    p.why = "--thread-split kernels";
    return p;
  }
  if (split == ThreadSplit::Both && max_ranks > 1) {
    int r = 1, k = 1;
    double s = 0;
    if (best_both(threads, max_ranks, w, r, k, s)) {
      p.mode = "both";
      p.ranks = r;
      p.kernel_threads = k;
      std::snprintf(buf, sizeof buf,
                    "--thread-split both: %d ranks of %ld-%ld rows x %d kernel threads", r,
                    rows / r, (rows + r - 1) / r, k);
      p.why = buf;
      return p;
    }
    // fewer than 4 threads (or rows): no rank can have a second kernel thread; ranks alone
    p.mode = "ranks";
    p.ranks = max_ranks;
    std::snprintf(buf, sizeof buf,
                  "--thread-split both: %d threads leave each of %d ranks one kernel thread",
                  threads, max_ranks);
    p.why = buf;
    return p;
  }
  if (split == ThreadSplit::Ranks || split == ThreadSplit::Both) {
    if (max_ranks <= 1) {
      p.mode = "one";
      p.why = thread_ranks_supported() ? "a batch of one row has one rank"
                                       : "no threads in this build: one rank";
      return p;
    }
    p.mode = "ranks";
    p.ranks = max_ranks;
    std::snprintf(buf, sizeof buf, "--thread-split ranks: %d ranks of %ld-%ld rows", max_ranks,
                  rows / max_ranks, (rows + max_ranks - 1) / max_ranks);
    p.why = buf;
    return p;
  }
  const double best = std::max({p.kernels_speedup, p.ranks_speedup, p.both_speedup});
  if (fit_ranks > 1 && p.ranks_speedup >= best) {
    p.mode = "ranks";
    p.ranks = fit_ranks;
    std::snprintf(buf, sizeof buf,
                  "%d ranks of >= %ld rows: estimated %.2fx against %.2fx for split kernels",
                  fit_ranks, rows / fit_ranks, p.ranks_speedup, p.kernels_speedup);
  } else if (p.both_speedup > p.kernels_speedup) {
    p.mode = "both";
    p.ranks = both_r;
    p.kernel_threads = both_k;
    std::snprintf(buf, sizeof buf,
                  "%d ranks of >= %ld rows x %d kernel threads: estimated %.2fx against %.2fx for "
                  "%d ranks alone and %.2fx for split kernels",
                  both_r, rows / both_r, both_k, p.both_speedup, p.ranks_speedup, fit_ranks,
                  p.kernels_speedup);
  } else {
    p.mode = "kernels";
    p.kernel_threads = threads;
    if (fit_ranks <= 1)
      std::snprintf(buf, sizeof buf, "%ld rows: too few for ranks of >= %ld rows; split kernels",
                    rows, kMinRowsPerRank);
    else
      std::snprintf(buf, sizeof buf, "split kernels: estimated %.2fx against %.2fx for %d ranks",
                    p.kernels_speedup, p.ranks_speedup, fit_ranks);
  }
  p.why = buf;
  return p;
}

ThreadRanks::ThreadRanks(int ranks) : world_(std::make_unique<ThreadWorld>(ranks)) {
  for (int r = 0; r < ranks; ++r)
    syncs_.push_back(std::make_unique<BucketedGradientSync>(world_->comm(r)));
  failed_.resize(size_t(ranks));
  threads_.reserve(size_t(ranks - 1));
  // The kernel pool's idle workers go first (a rank's kernels run on its own thread): under
  // WebAssembly every thread comes from the loader's fixed pool of Workers.
  if (ranks > 1) threads::release_workers();
  for (int r = 1; r < ranks; ++r) pools_.push_back(std::make_unique<threads::OwnPool>());
  try {
    for (int r = 1; r < ranks; ++r) threads_.emplace_back([this, r] { serve(r); });
  } catch (const std::system_error&) {  // the started ones return before we throw
    const int started = int(threads_.size()) + 1;
    stop();
    throw Error("thread ranks: only " + std::to_string(started) + " of " + std::to_string(ranks) +
                " ranks could get a thread (none left to start: under WebAssembly, load the "
                "engine with more threads, or train with fewer)");
  } catch (...) {
    stop();
    throw;
  }
}

ThreadRanks::~ThreadRanks() { stop(); }

void ThreadRanks::stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  pools_.clear();  // their workers joined here, by the thread that made the ranks
}

void ThreadRanks::serve(int rank) {
  // this rank's kernel calls split on a pool of its own (ranks x kernel threads): the shared
  // one, rank 0's, runs one region at a time; its workers start only if a call splits
  const threads::OwnPool::Use own(*pools_[size_t(rank - 1)]);
  struct Wait {
    const ThreadRanks* t;
    uint64_t seen;
  } wait{this, 0};
  const auto woken = [](const void* p) {
    const Wait& w = *static_cast<const Wait*>(p);
    return w.t->stop_.load() || w.t->generation_.load() != w.seen;
  };
  for (;;) {
    if (!threads::spin_wait(woken, &wait, kSpinUs)) {
      std::unique_lock<std::mutex> lk(mu_);
      wake_.wait(lk, [&] { return woken(&wait); });
    }
    if (stop_) return;
    wait.seen = generation_.load();
    guarded(rank);
    if (pending_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lk(mu_);  // run() is either before its check or asleep
      done_.notify_one();
    }
  }
}

void ThreadRanks::guarded(int rank) {
  try {
    (*job_)(rank);
  } catch (...) {
    failed_[size_t(rank)] = std::current_exception();
    int none = -1;
    first_failed_.compare_exchange_strong(none, rank);
    world_->abort();
  }
}

DataParallel ThreadRanks::dp(int rank) const {
  DataParallel d;
  d.rank = rank;
  d.size = size();
  d.sync = size() > 1 ? syncs_[size_t(rank)].get() : nullptr;
  d.split_batch = true;
  d.shard_update = size() > 1;  // every rank updates its shard, with rank 0's moments
  return d;
}

void ThreadRanks::run(const std::function<void(int)>& fn) {
  const int n = size();
  if (n == 1) return fn(0);
  std::fill(failed_.begin(), failed_.end(), nullptr);
  first_failed_ = -1;
  job_ = &fn;
  pending_.store(n - 1);
  {
    std::lock_guard<std::mutex> lk(mu_);
    generation_.fetch_add(1);  // publishes job_ and pending_ to the threads that see it
  }
  wake_.notify_all();
  guarded(0);
  const auto finished = [](const void* p) {
    return static_cast<const ThreadRanks*>(p)->pending_.load() == 0;
  };
  if (!threads::spin_wait(finished, this, kSpinUs)) {
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return finished(this); });
  }
  job_ = nullptr;
  const int first = first_failed_.load();
  if (first >= 0) std::rethrow_exception(failed_[size_t(first)]);
}

StepInfo ThreadRanks::step(const std::function<StepInfo(int)>& fn) {
  if (size() == 1) return fn(0);
  StepInfo s;
  run([&](int r) {
    const StepInfo mine = fn(r);
    if (r == 0) s = mine;
  });
  s.tokens = global_tokens();
  return s;
}

std::vector<std::unique_ptr<Model>> make_replicas(Model& m, int n) {
  std::vector<std::unique_ptr<Model>> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(make_model(m.config(), m.params().kernels(), 1));
    out.back()->params().share_values(m.params());
  }
  return out;
}

ThreadRankTrainer::ThreadRankTrainer(Model& m, const Task& task, TrainOptions o, int ranks)
    : ranks_(ranks), replicas_(make_replicas(m, ranks - 1)) {
  for (int r = 0; r < ranks; ++r) {
    TrainOptions ro = o;
    if (ranks > 1) ro.dp = ranks_.dp(r);
    trainers_.push_back(std::make_unique<Trainer>(r ? *replicas_[size_t(r - 1)] : m, task, ro));
    if (r) trainers_.back()->view_moments_of(trainers_[0]->adam());
  }
}

ThreadRankTrainer::~ThreadRankTrainer() = default;

StepInfo ThreadRankTrainer::step() {
  return ranks_.step([&](int r) { return trainers_[size_t(r)]->step(); });
}

void ThreadRankTrainer::save_state(SafeTensors& st, nlohmann::json& state) const {
  trainers_[0]->save_state(st, state);
  if (trainers_.size() == 1) return;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& t : trainers_) ranks.push_back(t->dropout_state());
  state["dropout_rng_ranks"] = ranks;
}

void ThreadRankTrainer::restore_state(const SafeTensors& st, const nlohmann::json& state) {
  for (auto& t : trainers_) t->restore_state(st, state);
  const auto it = state.find("dropout_rng_ranks");
  if (it != state.end() && it->is_array() && it->size() == trainers_.size())
    for (size_t r = 1; r < trainers_.size(); ++r) trainers_[r]->set_dropout_state((*it)[r]);
}

ThreadRankParallelTrainer::ThreadRankParallelTrainer(Model& m, const ParallelCorpus& corpus,
                                                     const Bpe& bpe, ParallelTrainOptions o,
                                                     int ranks)
    : ranks_(ranks), replicas_(make_replicas(m, ranks - 1)) {
  for (int r = 0; r < ranks; ++r) {
    ParallelTrainOptions ro = o;
    if (ranks > 1) ro.dp = ranks_.dp(r);
    trainers_.push_back(
        std::make_unique<ParallelTrainer>(r ? *replicas_[size_t(r - 1)] : m, corpus, bpe, ro));
    if (r) trainers_.back()->view_moments_of(trainers_[0]->adam());
  }
}

ThreadRankParallelTrainer::~ThreadRankParallelTrainer() = default;

StepInfo ThreadRankParallelTrainer::step() {
  return ranks_.step([&](int r) { return trainers_[size_t(r)]->step(); });
}

void ThreadRankParallelTrainer::restore(const SafeTensors& st) {
  for (auto& t : trainers_) t->restore(st);
}

}  // namespace attnlab
