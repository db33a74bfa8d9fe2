// Argument parsing for the attn command (see args.hpp).
#include "cli/args.hpp"

#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "core/check.hpp"

namespace attnlab::cli {

Args::Args(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    AL_CHECK(a.size() > 2 && a.rfind("--", 0) == 0,
             "unexpected argument \"" << a << "\" (flags start with --)");
    std::string key = a.substr(2), value;
    const size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      value = argv[++i];
    } else {
      value = "\x01";  // present without a value
    }
    AL_CHECK(!values_.count(key), "flag --" << key << " given twice");
    values_[key] = value;
  }
}

bool Args::has(const std::string& f) {
  if (!values_.count(f)) return false;
  used_[f] = true;
  return true;
}

bool Args::given(const std::string& f) const { return values_.count(f) != 0; }

std::string Args::str(const std::string& f, const std::string& def) {
  if (!has(f)) return def;
  AL_CHECK(values_[f] != "\x01", "flag --" << f << " needs a value");
  return values_[f];
}

std::string Args::need(const std::string& f) {
  AL_CHECK(values_.count(f), "missing required flag --" << f);
  return str(f);
}

int Args::integer(const std::string& f, int def, int lo, int hi) {
  if (!values_.count(f)) return def;
  const std::string s = str(f);
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (...) {
    pos = 0;
  }
  AL_CHECK(pos == s.size() && pos > 0, "flag --" << f << " needs an integer, got \"" << s << "\"");
  AL_CHECK(v >= lo && v <= hi,
           "flag --" << f << " = " << v << " is outside [" << lo << ", " << hi << "]");
  return int(v);
}

double Args::number(const std::string& f, double def, double lo, double hi) {
  if (!values_.count(f)) return def;
  const std::string s = str(f);
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    pos = 0;
  }
  AL_CHECK(pos == s.size() && pos > 0, "flag --" << f << " needs a number, got \"" << s << "\"");
  AL_CHECK(v >= lo && v <= hi,
           "flag --" << f << " = " << v << " is outside [" << lo << ", " << hi << "]");
  return v;
}

bool Args::flag(const std::string& f) {
  if (!has(f)) return false;
  const std::string& v = values_[f];
  if (v == "\x01" || v == "true" || v == "1") return true;
  AL_CHECK(v == "false" || v == "0", "flag --" << f << " takes true or false, got \"" << v << "\"");
  return false;
}

void Args::defaults(const std::vector<std::pair<std::string, std::string>>& flags) {
  for (const auto& [key, value] : flags)
    if (!values_.count(key)) values_[key] = value.empty() ? std::string("\x01") : value;
}

std::map<std::string, std::string> Args::all() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : values_) out[key] = value == "\x01" ? "" : value;
  return out;
}

void Args::finish() const {
  for (const auto& kv : values_) AL_CHECK(used_.count(kv.first), "unknown flag --" << kv.first);
}

std::vector<int32_t> parse_ids(const std::string& s, const std::string& what) {
  std::istringstream in(s);
  std::vector<int32_t> out;
  std::string tok;
  while (in >> tok) {
    size_t pos = 0;
    long long v = -1;
    try {
      v = std::stoll(tok, &pos);
    } catch (...) {
      pos = 0;
    }
    AL_CHECK(pos == tok.size() && v >= 0 && v < (1LL << 31),
             what << ": \"" << tok << "\" is not a token id");
    out.push_back(int32_t(v));
  }
  return out;
}

bool stderr_is_tty() { return isatty(fileno(stderr)) != 0; }

}  // namespace attnlab::cli
