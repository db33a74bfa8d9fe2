// Shared by the sequence-model tests: the ragged token batch of the finite-difference checks,
// and the readers of the PyTorch reference fixtures (tests/reference/gen_*.py write them: I32
// tensors src, tgt_in, tgt_out; F32 results) with the tolerance they are compared at.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "io/safetensors.hpp"
#include "models/model.hpp"
#include "tolerances.hpp"

namespace attnlab::test {

// pad 0, bos 1, eos 2; row 1 has a shorter source and target, row 2 a one-token source
inline Batch ragged_batch() {
  Batch b;
  b.B = 3;
  b.S = 4;
  b.T = 4;
  b.src = {3, 4, 5, 6, 7, 3, 0, 0, 8, 0, 0, 0};
  b.tgt_in = {1, 6, 5, 4, 1, 3, 7, 0, 1, 8, 0, 0};
  b.tgt_out = {6, 5, 4, 2, 3, 7, 2, 0, 8, 2, 0, 0};
  return b;
}

inline std::vector<int32_t> fixture_ints(const SafeTensors& st, const char* name) {
  const StTensor* t = st.find(name);
  REQUIRE(t);
  REQUIRE(t->dtype == "I32");
  std::vector<int32_t> v(t->data.size() / 4);
  std::memcpy(v.data(), t->data.data(), t->data.size());
  return v;
}

inline std::vector<float> fixture_f32(const SafeTensors& st, const std::string& name) {
  const StTensor* t = st.find(name);
  REQUIRE(t);
  return t->to_f32();
}

// The fixture's batch: src [B,S], tgt_in and tgt_out [B,T].
inline Batch fixture_batch(const SafeTensors& ref) {
  Batch b;
  const StTensor* src = ref.find("src");
  REQUIRE(src);
  b.B = int(src->shape[0]);
  b.S = int(src->shape[1]);
  b.src = fixture_ints(ref, "src");
  b.tgt_in = fixture_ints(ref, "tgt_in");
  b.tgt_out = fixture_ints(ref, "tgt_out");
  b.T = int(b.tgt_in.size()) / b.B;
  return b;
}

inline bool torch_close(double a, double b) {
  return std::fabs(a - b) <= kTorchAbs + kTorchRel * std::fabs(b);
}

}  // namespace attnlab::test
