// Data parallelism inside one process: `attn train --threads N` can run N replicas of the step,
// one thread each, on contiguous row shares of the batch (rank_rows), their gradients summed by
// the bucketed sync over a ThreadWorld (thread_communicator.hpp). The replicas are models of the
// same config whose ParamArenas view rank 0's values (ParamArena::share_values): one copy of the
// weights, each replica its own activations and gradients. After the reduction (which leaves the
// summed gradients in every replica) every rank clips and updates its own shard of the weights
// at once (DataParallel::shard_update, train/step.hpp's update_shard: the norm from the shards'
// sums of squares, then Adam on the shard), so the optimizer's pass over the weights, a serial
// tail of the step on rank 0 before, splits over the ranks too. No rank writes weights before
// every rank has finished backward (the reduction waits for all), and none reads them again
// before every shard is written (a barrier). Only rank 0's optimizer holds moments; a replica's
// Adam views them (Adam::view_moments_of: two floats a parameter less per extra rank). Kernels
// then run on the rank's own thread.
//
// The other way to use N threads is to split each kernel call (kernels/threads.hpp). The choice,
// plan_threads(), is a cost model of the speedup of each, from the shape of one step:
//   ranks r:   r * 0.92 (the measured efficiency of 2 MPI ranks on S, M and base), allowed while
//              every rank keeps at least kMinRowsPerRank rows of the batch (fewer rows make the
//              GEMMs of a replica too thin to keep a core busy); r = min(N, rows / kMinRowsPerRank)
//   kernels k: 1 + (k - 1) * 0.85 * w / (w + 2^24), w = tokens per batch * width^2: the size of
//              one projection GEMM of the step, which decides how well a split call amortises
//              its fork and join (fitted to the 2-thread steps of S, M and base: about 1.1x,
//              1.4x, 1.8x)
//   both r x k: r * 0.92 * (the kernel speedup of k threads on w / r), for r in [2, the ranks
//              the rows allow] and k = N / r >= 2: when the batch has too few rows for a rank
//              per thread, the threads left over split each rank's kernel calls (every rank
//              thread but rank 0 has a kernel pool of its own, threads::OwnPool, so the ranks'
//              split calls run at once)
// and the largest wins (ranks on a tie).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kernels/threads.hpp"
#include "models/model.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/thread_communicator.hpp"
#include "train/grad_sync.hpp"
#include "train/parallel_trainer.hpp"
#include "train/trainer.hpp"

namespace attnlab {

enum class ThreadSplit { Auto, Ranks, Kernels, Both };
// "auto", "ranks", "kernels", "both" (anything else: an attnlab::Error naming them).
ThreadSplit parse_thread_split(const std::string& s);

struct ThreadPlan {
  int ranks = 1, kernel_threads = 1;
  std::string mode;  // "ranks", "kernels", "both" (ranks x kernel threads) or "one" (one thread)
  // the cost model's estimates (both: the best ranks x kernel threads, 0 where none fits)
  double ranks_speedup = 1, kernels_speedup = 1, both_speedup = 0;
  std::string why;
  nlohmann::json to_json() const;
};

constexpr long kMinRowsPerRank = 4;

// The plan for `threads` threads on a step of `rows` rows (sequences), `tokens` tokens (padded,
// all sides) and model width `width`. Forced modes keep their mode: ranks (at most one per row),
// kernels, both (the best r x k with k >= 2, at most one rank per row; with fewer than 4 threads,
// ranks alone). Without threads to spare (single-threaded WebAssembly) every plan is one rank.
ThreadPlan plan_threads(int threads, ThreadSplit split, long rows, double tokens, int width);

// T ranks as threads: the world, each rank's bucketed sync and DataParallel, and the threads of
// ranks 1..T-1: started once with the ranks, each asleep until run() hands it a job, joined when
// the ranks are destroyed. A rank keeps its thread from step to step, and with it what its kernels
// keep per thread (the GEMM's packing buffers).
class ThreadRanks {
 public:
  explicit ThreadRanks(int ranks);
  ~ThreadRanks();
  ThreadRanks(const ThreadRanks&) = delete;
  ThreadRanks& operator=(const ThreadRanks&) = delete;
  int size() const { return int(syncs_.size()); }
  // {rank, size, its sync (null for one rank), split_batch, shard_update with more than one}
  DataParallel dp(int rank) const;
  // fn(rank) on every rank, rank 0 on the calling thread and the others on their threads;
  // returns when all returned. A rank that throws releases the others (ThreadWorld::abort) and
  // its exception is rethrown (not theirs); the world is then spent (later runs throw). One run
  // at a time (from one thread).
  void run(const std::function<void(int)>& fn);
  // One training step on every rank: fn(rank) steps that rank's trainer (through run()); returns
  // rank 0's StepInfo with the global target tokens of the step. With one rank, fn(0) as it is.
  StepInfo step(const std::function<StepInfo(int)>& fn);
  // The global target tokens of the last step.
  long global_tokens() const { return long(syncs_[0]->global_tokens()); }

 private:
  void serve(int rank);    // the loop of rank `rank`'s thread
  void guarded(int rank);  // job_(rank), its exception kept and the world aborted
  void stop();             // wakes the threads to return and joins them

  std::unique_ptr<ThreadWorld> world_;
  std::vector<std::unique_ptr<BucketedGradientSync>> syncs_;
  // the job: published with its generation (under mu_ for a thread asleep on wake_), and
  // `pending` threads still running it. A rank thread spins for the next job up to kSpinUs
  // before it sleeps, and run() as long for the last rank to finish: steps follow each other
  // closely, and a sleeping thread takes tens of microseconds to wake.
  static constexpr int kSpinUs = 200;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> failed_;  // per rank, for the job in flight
  std::atomic<int> first_failed_{-1};       // the rank that failed first (it released the others)
  std::vector<std::thread> threads_;        // ranks 1..T-1
  // their kernel pools (ranks x kernel threads), made and destroyed on the ranks' creator
  std::vector<std::unique_ptr<threads::OwnPool>> pools_;
};

// n models of m's config, each viewing m's parameter values.
std::vector<std::unique_ptr<Model>> make_replicas(Model& m, int n);

// The toy tasks' Trainer on thread ranks: rank 0 trains `m` itself, ranks 1..T-1 replicas of
// it; o.batch is the global batch. With one rank it is exactly the single-thread Trainer.
// save_state adds every rank's dropout generator ("dropout_rng_ranks"), so that a resume on as
// many ranks continues bit for bit; on another rank count the ranks past 0 reseed as MPI's do.
class ThreadRankTrainer {
 public:
  ThreadRankTrainer(Model& m, const Task& task, TrainOptions o, int ranks);
  ~ThreadRankTrainer();
  StepInfo step();  // rank 0's, with the global tokens
  int next_step() const { return trainers_[0]->next_step(); }
  int ranks() const { return ranks_.size(); }
  const Trainer& rank_trainer(int rank) const { return *trainers_.at(size_t(rank)); }
  void save_state(SafeTensors& st, nlohmann::json& state) const;
  void restore_state(const SafeTensors& st, const nlohmann::json& state);

 private:
  ThreadRanks ranks_;
  std::vector<std::unique_ptr<Model>> replicas_;
  std::vector<std::unique_ptr<Trainer>> trainers_;
};

// The corpus trainer on thread ranks (its batch is always split by rank_rows); rank 0 saves.
class ThreadRankParallelTrainer {
 public:
  ThreadRankParallelTrainer(Model& m, const ParallelCorpus& corpus, const Bpe& bpe,
                            ParallelTrainOptions o, int ranks);
  ~ThreadRankParallelTrainer();
  StepInfo step();
  int next_step() const { return trainers_[0]->next_step(); }
  int epoch() const { return trainers_[0]->epoch(); }
  int ranks() const { return ranks_.size(); }
  const ParallelTrainer& rank_trainer(int rank) const { return *trainers_.at(size_t(rank)); }
  void save(const std::string& path, const nlohmann::json& extra = nlohmann::json::object()) const {
    trainers_[0]->save(path, extra);
  }
  void restore(const SafeTensors& st);

 private:
  ThreadRanks ranks_;
  std::vector<std::unique_ptr<Model>> replicas_;
  std::vector<std::unique_ptr<ParallelTrainer>> trainers_;
};

}  // namespace attnlab
