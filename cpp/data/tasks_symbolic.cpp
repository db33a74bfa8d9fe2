// Symbol tasks: copy, reverse and sort a random sequence (lengths min_len..max_len over
// `symbols` symbols), and addition of two numbers of 1..digits digits ("12+345" -> "357").
#include <algorithm>

#include "data/task.hpp"
#include "models/config.hpp"

namespace attnlab {

namespace {

enum class Op { Copy, Reverse, Sort };

class SequenceTask : public Task {
 public:
  SequenceTask(Op op, const char* name, const nlohmann::json& o) : op_(op), name_(name) {
    min_len_ = json_int(o, "min_len", 1, 1, 1000);
    max_len_ = json_int(o, "max_len", 10, min_len_, 1000);
    symbols_ = json_int(o, "symbols", 10, 2, 100000);
  }
  std::string name() const override { return name_; }
  int src_vocab() const override { return kFirstSymbol + symbols_; }
  int tgt_vocab() const override { return kFirstSymbol + symbols_; }
  int max_src_len() const override { return max_len_; }
  int max_tgt_len() const override { return max_len_; }

 protected:
  Example draw(Rng& rng) const override {
    Example e;
    const int n = min_len_ + int(rng.below(uint32_t(max_len_ - min_len_ + 1)));
    for (int i = 0; i < n; ++i) e.src.push_back(kFirstSymbol + int(rng.below(uint32_t(symbols_))));
    e.tgt = e.src;
    if (op_ == Op::Reverse) std::reverse(e.tgt.begin(), e.tgt.end());
    if (op_ == Op::Sort) std::sort(e.tgt.begin(), e.tgt.end());
    return e;
  }

 private:
  Op op_;
  const char* name_;
  int min_len_, max_len_, symbols_;
};

class AdditionTask : public Task {
 public:
  explicit AdditionTask(const nlohmann::json& o) { digits_ = json_int(o, "digits", 3, 1, 18); }
  std::string name() const override { return "addition"; }
  int src_vocab() const override { return kFirstSymbol + 11; }  // digits and '+'
  int tgt_vocab() const override { return kFirstSymbol + 10; }
  int max_src_len() const override { return 2 * digits_ + 1; }
  int max_tgt_len() const override { return digits_ + 1; }
  std::string src_token(int id) const override {
    return id == kFirstSymbol + 10 ? "+" : Task::src_token(id);
  }

 protected:
  Example draw(Rng& rng) const override {
    const long long a = number(rng), b = number(rng);
    Example e;
    push(e.src, a);
    e.src.push_back(kFirstSymbol + 10);
    push(e.src, b);
    push(e.tgt, a + b);
    return e;
  }

 private:
  long long number(Rng& rng) const {
    const int n = 1 + int(rng.below(uint32_t(digits_)));
    long long x = 0;
    for (int i = 0; i < n; ++i) x = x * 10 + rng.below(10);
    return x;
  }
  static void push(std::vector<int32_t>& out, long long x) {
    const std::string s = std::to_string(x);
    for (char ch : s) out.push_back(kFirstSymbol + (ch - '0'));
  }
  int digits_;
};

}  // namespace

std::unique_ptr<Task> make_copy_task(const nlohmann::json& o) {
  return std::make_unique<SequenceTask>(Op::Copy, "copy", o);
}
std::unique_ptr<Task> make_reverse_task(const nlohmann::json& o) {
  return std::make_unique<SequenceTask>(Op::Reverse, "reverse", o);
}
std::unique_ptr<Task> make_sort_task(const nlohmann::json& o) {
  return std::make_unique<SequenceTask>(Op::Sort, "sort", o);
}
std::unique_ptr<Task> make_addition_task(const nlohmann::json& o) {
  return std::make_unique<AdditionTask>(o);
}

}  // namespace attnlab
