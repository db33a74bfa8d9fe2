// Ctrl-C during `attn train`: while a SigintGuard lives, SIGINT only raises a flag; the training
// loop checks it after each step, saves what it has trained and exits with 130 (the shell's
// code for an interrupted command). SIGTERM, the signal a shutting-down machine or a job
// scheduler sends before it kills, does the same. The previous handlers are restored when the
// guard ends.
#pragma once
#include <csignal>

namespace attnlab::cli {

class SigintGuard {
 public:
  SigintGuard() {
    flag() = 0;
    previous_ = std::signal(SIGINT, on_sigint);
    previous_term_ = std::signal(SIGTERM, on_sigint);
  }
  ~SigintGuard() {
    std::signal(SIGINT, previous_);
    std::signal(SIGTERM, previous_term_);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

  static bool interrupted() { return flag() != 0; }

 private:
  static volatile std::sig_atomic_t& flag() {
    static volatile std::sig_atomic_t f = 0;
    return f;
  }
  static void on_sigint(int) { flag() = 1; }

  void (*previous_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

// Exit code of a training command that saved its work after SIGINT.
constexpr int kInterruptedExit = 130;

}  // namespace attnlab::cli
