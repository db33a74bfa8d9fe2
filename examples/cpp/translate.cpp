// Loads a checkpoint (any Transformer or RNNsearch one: from `attn train`, the page's export,
// train_reverse, or a corpus run that carries its vocabulary), translates one source and prints
// the decoder's cross-attention over the source as a table.
//   translate <checkpoint.safetensors> ["5 6 7" | "some text"] [beam = 1]
// Without a source it takes the first held-out example of the checkpoint's task.
#include <attnlab/attnlab.hpp>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

namespace {

// "5 6 7" -> ids (true); anything else is text (false).
bool parse_ids(const std::string& s, std::vector<std::int32_t>& ids) {
  std::istringstream in(s);
  std::string w;
  while (in >> w) {
    char* end = nullptr;
    const long v = std::strtol(w.c_str(), &end, 10);
    if (*end != '\0') return false;
    ids.push_back(std::int32_t(v));
  }
  return !ids.empty();
}

std::string cell(const std::string& s) { return s.size() > 7 ? s.substr(0, 6) + "~" : s; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: translate <checkpoint.safetensors> [\"5 6 7\" | \"text\"] [beam]\n");
    return 2;
  }
  try {
    attnlab::Session s = attnlab::Session::load(argv[1]);
    const attnlab::ModelInfo info = s.info();
    const int beam = argc > 3 ? std::atoi(argv[3]) : 1;
    std::printf("%s: %s, %ld parameters, step %d%s\n", argv[1], info.kind.c_str(), info.parameters,
                info.step, info.has_vocabulary ? ", subword vocabulary" : "");

    attnlab::Translation t;
    std::vector<std::int32_t> ids;
    if (argc > 2 && parse_ids(argv[2], ids)) {
      t = s.translate(attnlab::tokens(xt::adapt(ids, {ids.size()})), beam);
    } else if (argc > 2) {
      t = s.translate(std::string(argv[2]), beam > 1 ? beam : 4);
    } else {
      const attnlab::Examples ex = s.examples(1);  // needs the checkpoint's task
      const auto row = xt::view(ex.src, 0, xt::all());
      const auto len = static_cast<std::ptrdiff_t>(xt::sum(xt::not_equal(row, 0))());
      t = s.translate(xt::view(ex.src, 0, xt::range(0, len)), beam);
    }

    std::printf("source:");
    for (const auto& w : t.source_tokens) std::printf(" %s", w.c_str());
    std::printf("\noutput:");
    for (const auto& w : t.output_tokens) std::printf(" %s", w.c_str());
    std::printf("\ntext: %s\n", t.text.c_str());

    const auto& a = t.cross_attention;  // [output + 1, source]
    if (a.size() == 0) {
      std::printf("(this model has no cross-attention)\n");
      return 0;
    }
    std::printf(
        "cross-attention [%zu x %zu] (rows: output tokens then </s>; columns: source tokens)\n",
        a.shape()[0], a.shape()[1]);
    std::printf("%8s", "");
    for (const auto& w : t.source_tokens) std::printf(" %7s", cell(w).c_str());
    std::printf("\n");
    const auto focus = xt::argmax(a, 1);  // the source position each output looked at most
    for (std::size_t i = 0; i < a.shape()[0]; ++i) {
      const std::string name = i < t.output_tokens.size() ? t.output_tokens[i] : "</s>";
      std::printf("%8s", cell(name).c_str());
      for (std::size_t j = 0; j < a.shape()[1]; ++j) std::printf(" %7.3f", a(i, j));
      std::printf("   <- %s\n", cell(t.source_tokens.at(focus(i))).c_str());
    }
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "translate: %s\n", e.what());
    return 1;
  }
  return 0;
}
