// Corpus BLEU with sacreBLEU's defaults (see bleu.hpp). The 13a rules are applied as four
// left-to-right passes with the same non-overlapping match semantics as sacreBLEU's regexes;
// every character class involved is ASCII, so working on UTF-8 bytes gives the same output.
#include "eval/bleu.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/check.hpp"

namespace attnlab {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// ASCII punctuation split off as its own token: every printable non-alphanumeric except
// apostrophe, comma, dash and period (those have the rules below).
bool is_split_symbol(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == 0x2F;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
}

std::vector<std::string> split_spaces(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

using Counts = std::map<std::vector<std::string>, int>;

Counts ngrams(const std::vector<std::string>& w) {
  Counts c;
  for (size_t n = 1; n <= 4; ++n)
    for (size_t i = 0; i + n <= w.size(); ++i)
      ++c[std::vector<std::string>(w.begin() + i, w.begin() + i + n)];
  return c;
}

}  // namespace

std::string tokenize_13a(const std::string& line) {
  std::string s = line;  // sacreBLEU strips trailing whitespace before tokenizing
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  replace_all(s, "<skipped>", "");
  replace_all(s, "-\n", "");
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.find('&') != std::string::npos) {
    replace_all(s, "&quot;", "\"");
    replace_all(s, "&amp;", "&");
    replace_all(s, "&lt;", "<");
    replace_all(s, "&gt;", ">");
  }
  s = " " + s + " ";
  std::string a;  // symbols -> " c "
  for (char c : s) {
    if (is_split_symbol(c))
      a += std::string(" ") + c + " ";
    else
      a += c;
  }
  std::string b;  // ([^0-9])([.,]) -> "\1 \2 "
  for (size_t i = 0; i < a.size(); ++i) {
    if (i + 1 < a.size() && !is_digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
      b += a[i];
      b += ' ';
      b += a[++i];
      b += ' ';
    } else {
      b += a[i];
    }
  }
  std::string c;  // ([.,])([^0-9]) -> " \1 \2"
  for (size_t i = 0; i < b.size(); ++i) {
    if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !is_digit(b[i + 1])) {
      c += ' ';
      c += b[i];
      c += ' ';
      c += b[++i];
    } else {
      c += b[i];
    }
  }
  std::string d;  // ([0-9])(-) -> "\1 \2 "
  for (size_t i = 0; i < c.size(); ++i) {
    if (i + 1 < c.size() && is_digit(c[i]) && c[i + 1] == '-') {
      d += c[i];
      d += " - ";
      ++i;
    } else {
      d += c[i];
    }
  }
  std::string out;
  for (const auto& t : split_spaces(d)) out += (out.empty() ? "" : " ") + t;
  return out;
}

BleuScore corpus_bleu(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs) {
  AL_CHECK(!refs.empty(), "corpus_bleu: no reference set");
  for (const auto& set : refs)
    AL_CHECK(set.size() == hyps.size(),
             "corpus_bleu: " << hyps.size() << " hypotheses but " << set.size() << " references");
  std::array<long, 4> correct{}, total{};
  BleuScore s;
  for (size_t i = 0; i < hyps.size(); ++i) {
    const auto hw = split_spaces(tokenize_13a(hyps[i]));
    Counts ref_max;
    long closest = -1;
    for (const auto& set : refs) {
      const auto rw = split_spaces(tokenize_13a(set[i]));
      const long rl = long(rw.size()), hl = long(hw.size());
      // Closest reference length; on a tie the shorter one.
      if (closest < 0 || std::labs(rl - hl) < std::labs(closest - hl) ||
          (std::labs(rl - hl) == std::labs(closest - hl) && rl < closest))
        closest = rl;
      for (const auto& [g, n] : ngrams(rw)) ref_max[g] = std::max(ref_max[g], n);
    }
    s.hyp_len += long(hw.size());
    s.ref_len += closest;
    for (const auto& [g, n] : ngrams(hw)) {
      total[g.size() - 1] += n;
      const auto it = ref_max.find(g);
      if (it != ref_max.end()) correct[g.size() - 1] += std::min(n, it->second);
    }
  }
  // sacreBLEU's compute_bleu: an order with no hypothesis n-grams stops the loop (leaving
  // precision 0, hence BLEU 0); an order with no match gets 100 / (2^k * total), k counting
  // such orders.
  double smooth = 1;
  for (int n = 0; n < 4; ++n) {
    if (total[n] == 0) break;
    if (correct[n] == 0) {
      smooth *= 2;
      s.precisions[n] = 100.0 / (smooth * total[n]);
    } else {
      s.precisions[n] = 100.0 * correct[n] / total[n];
    }
  }
  s.brevity_penalty = s.hyp_len >= s.ref_len ? 1.0
                      : s.hyp_len > 0        ? std::exp(1.0 - double(s.ref_len) / s.hyp_len)
                                             : 0.0;
  double log_sum = 0;
  for (double p : s.precisions) log_sum += p > 0 ? std::log(p) : -9999999999.0;
  s.score = s.brevity_penalty * std::exp(log_sum / 4);
  return s;
}

std::string BleuScore::to_string() const {
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %ld ref_len = %ld)", score,
      precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty,
      ref_len > 0 ? double(hyp_len) / ref_len : 0.0, hyp_len, ref_len);
  return buf;
}

}  // namespace attnlab
