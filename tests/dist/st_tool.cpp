// A small helper of tests/dist/attn_dist_test.sh, so the shell test needs no Python:
//   st_tool diff A B TOL   max |a - b| over the model tensors of two checkpoints (same names and
//                          shapes required; "optimizer." tensors skipped); exit 0 when < TOL.
//                          The attention key biases (the middle third of each in_proj_bias) are
//                          left out: their exact gradient is 0 (softmax ignores a shift shared by
//                          all keys), so they only ever receive float rounding noise, which Adam
//                          rescales into steps of the learning rate's size; two summation orders
//                          then differ there by O(lr) while every other weight agrees closely.
//   st_tool state C KEY    the value of KEY in checkpoint C's training state ("attnlab_train")
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "attnlab/error.hpp"
#include "io/safetensors.hpp"

using namespace attnlab;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "diff" && argc == 5) {
      const SafeTensors a = read_safetensors(argv[2]), b = read_safetensors(argv[3]);
      const double tol = std::atof(argv[4]);
      double worst = 0;
      std::string where = "-";
      int compared = 0;
      for (const StTensor& t : a.tensors) {
        if (t.name.rfind("optimizer.", 0) == 0) continue;
        const StTensor* u = b.find(t.name);
        if (!u || u->shape != t.shape) {
          std::printf("tensor %s missing or of another shape in %s\n", t.name.c_str(), argv[3]);
          return 1;
        }
        const std::vector<float> x = t.to_f32(), y = u->to_f32();
        const bool in_proj_bias = t.name.size() >= 12 &&
                                  t.name.compare(t.name.size() - 12, 12, "in_proj_bias") == 0;
        const size_t C = x.size() / 3;
        for (size_t i = 0; i < x.size(); ++i) {
          if (in_proj_bias && i >= C && i < 2 * C) continue;  // a key bias
          const double d = std::fabs(double(x[i]) - double(y[i]));
          if (!(d <= worst)) worst = d, where = t.name;  // NaN counts as worst
        }
        ++compared;
      }
      std::printf("max_abs_diff %.3g (%s) over %d tensors\n", worst, where.c_str(), compared);
      return compared > 0 && worst < tol ? 0 : 1;
    }
    if (mode == "state" && argc == 4) {
      const SafeTensors st = read_safetensors(argv[2]);
      const auto it = st.metadata.find("attnlab_train");
      if (it == st.metadata.end()) throw Error("no training state in " + std::string(argv[2]));
      const nlohmann::json s = nlohmann::json::parse(it->second);
      std::printf("%s\n", s.contains(argv[3]) ? s[argv[3]].dump().c_str() : "absent");
      return 0;
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: st_tool diff A B TOL | st_tool state C KEY\n");
  return 2;
}
