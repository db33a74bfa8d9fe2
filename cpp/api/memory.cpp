// Size estimates and the memory budget (see memory.hpp).
#include "api/memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/check.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <malloc.h>
#else
#include <unistd.h>
#endif

namespace attnlab::api {

namespace {

double num(const nlohmann::json& j, const char* key, double def) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : def;
}

}  // namespace

SizeEstimate estimate_size(const nlohmann::json& m, int B, int S, int T) {
  const std::string kind = m.value("model", std::string("transformer"));
  const double Vs = num(m, "src_vocab", 16), Vt = num(m, "tgt_vocab", 16);
  double P = 0, act = 0;  // act in floats
  if (kind == "transformer" || kind == "lm" || kind == "encoder") {
    const double C = num(m, "d_model", 64), F = num(m, "d_ff", 256), H = num(m, "heads", 4);
    const double L = num(m, "max_len", 128);
    const double Le = kind == "lm" ? 0 : num(m, "enc_layers", 2);
    const double Ld = kind == "encoder" ? 0 : num(m, "dec_layers", 2);
    const double attn = 4 * C * C + 4 * C, ffn = 2 * C * F + F + C, ln = 2 * C;
    P = Le * (attn + ffn + 2 * ln) + Ld * ((kind == "lm" ? 1 : 2) * attn + ffn + 3 * ln) + 2 * ln;
    P += (Vs + Vt) * C + Vt * C + Vt;  // embeddings and the output projection
    if (m.value("pos_encoding", std::string("sinusoidal")) == "learned") P += L * C;
    const double Tx = kind == "encoder" ? S : T;
    // per layer: ~12 C-wide buffers and the FFN's hidden twice, per token; the attention maps
    act = Le * B * S * (12 * C + 2 * F) + Le * B * H * S * S * 2;
    act += Ld * B * Tx * (18 * C + 2 * F) + Ld * B * H * Tx * (Tx + S) * 2;
    act += 3.0 * B * Tx * Vt;  // logits, their gradient, softmax
  } else if (kind == "rnnsearch" || kind == "rnnencdec") {
    const double E = num(m, "emb", 32), Hd = num(m, "hidden", 64), A = num(m, "attn", Hd);
    P = (Vs + Vt) * E + 2 * 3 * (E * Hd + Hd * Hd + 2 * Hd);           // embeddings, bi-GRU
    P += 3 * ((E + 2 * Hd) * Hd + Hd * Hd + 2 * Hd) + 2 * Hd * Hd + Hd;  // decoder GRU, init
    P += 2 * Hd * A + Hd * A + A + (Hd + 2 * Hd + E) * Vt + Vt;         // attention, output
    act = B * S * (2 * Hd * 8 + A) + B * T * (Hd * 10 + 2 * Hd + S + 3 * Vt) + B * T * S * A;
  } else if (kind == "pointer") {
    const double Hd = num(m, "hidden", 128), A = num(m, "attn", Hd), D = num(m, "dim", 2);
    const double Em = num(m, "embed", 0), In = Em > 0 ? Em : D + 1;
    P = 2 * 4 * (In * Hd + Hd * Hd + 2 * Hd) + 3 * (Hd * A) + A + 2 * Hd + Em * (D + 2);
    act = B * (S + T) * Hd * 12 + B * T * S * (A + 2);
  }
  SizeEstimate e;
  e.params = P;
  e.param_bytes = 16 * P;
  e.activation_bytes = 4 * act;
  return e;
}

double memory_budget() {
#ifdef __EMSCRIPTEN__
  const struct mallinfo mi = mallinfo();
  return double(emscripten_get_heap_max()) - double(mi.uordblks);
#else
  if (const char* s = std::getenv("ATTNLAB_MAX_BYTES")) return std::atof(s);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 64.0 * (1ull << 30);
#endif
}

std::string megabytes(double bytes) {
  const double mb = bytes / (1024.0 * 1024.0);
  return std::to_string(static_cast<long long>(mb > 0 ? (mb < 9e15 ? mb : 9e15) : 0)) + " MB";
}

void check_fits(const SizeEstimate& e, const char* what) {
  const double budget = memory_budget();
  AL_CHECK(e.total() <= budget,
           what << " needs about " << megabytes(e.total()) << " ("
                << static_cast<long long>(std::min(e.params, 9e15)) << " parameters, "
                << megabytes(e.activation_bytes) << " of activations per batch), more than the "
                << megabytes(budget)
                << " this engine can still allocate: make it smaller or lower the batch size");
}

void check_alloc(double bytes, const char* what) {
  const double budget = memory_budget();
  AL_CHECK(bytes <= budget, what << " need " << megabytes(bytes) << ", more than the " << megabytes(budget)
                                 << " this engine can still allocate");
}

}  // namespace attnlab::api
