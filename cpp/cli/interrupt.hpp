// Ctrl-C during `attn train`: while a SigintGuard lives, SIGINT only raises a flag; the training
// loop checks it after each step, saves what it has trained and exits with 130 (the shell's
// code for an interrupted command). The previous handler is restored when the guard ends.
#pragma once
#include <csignal>

namespace attnlab::cli {

class SigintGuard {
 public:
  SigintGuard() {
    flag() = 0;
    previous_ = std::signal(SIGINT, on_sigint);
  }
  ~SigintGuard() { std::signal(SIGINT, previous_); }
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
};

// Exit code of a training command that saved its work after SIGINT.
constexpr int kInterruptedExit = 130;

}  // namespace attnlab::cli
