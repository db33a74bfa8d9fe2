// Command-line arguments of `attn <command> --flag value ...`. Each command takes the flags it
// knows; finish() then rejects whatever is left, so an unknown or misspelt flag is an error
// (attnlab::Error, printed as one line by main). Values are checked when read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::cli {

class Args {
 public:
  Args(int argc, char** argv, int first);
  bool has(const std::string& flag);          // consumes a value-less or valued flag
  bool given(const std::string& flag) const;  // whether it was given, without consuming it
  std::string str(const std::string& flag, const std::string& def = "");
  std::string need(const std::string& flag);  // required
  int integer(const std::string& flag, int def, int lo, int hi);
  double number(const std::string& flag, double def, double lo, double hi);
  bool flag(const std::string& flag);  // --x or --x true/false
  void finish() const;                 // errors on unconsumed flags
  // Adds flags that were not given ("" as a value: a flag without one); given flags win.
  void defaults(const std::vector<std::pair<std::string, std::string>>& flags);
  // Every flag given or defaulted so far, flag -> value ("" for a flag without one).
  std::map<std::string, std::string> all() const;

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> used_;
};

// "5 6 7" -> {5, 6, 7}; rejects anything that is not a whitespace-separated integer list.
std::vector<int32_t> parse_ids(const std::string& s, const std::string& what);
bool stderr_is_tty();

}  // namespace attnlab::cli
