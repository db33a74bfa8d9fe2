// The defaults of Model's optional capabilities (see model.hpp): a model without a stepwise
// decoder, a causal mask, attention heads or point inputs refuses the calls that need one.
#include "models/model.hpp"

#include "core/check.hpp"

namespace attnlab {

std::string Model::kind() const { return config_.value("model", std::string("?")); }

int Model::position_limit() const { return config_.contains("max_len") ? max_len() : 0; }

GreedyDecoded Model::greedy_stepwise(const std::vector<std::vector<int32_t>>&, int) {
  AL_CHECK(false, "a \"" << kind() << "\" model has no stepwise decoder");
  return {};
}

PointDecoded Model::decode_points(const std::vector<float>&, int, int, int, bool) {
  AL_CHECK(false, "a \"" << kind() << "\" model reads token ids, not point sets");
  return {};
}

void Model::set_muted_heads(const HeadMask& mask) {
  AL_CHECK(mask.empty(), "a \"" << kind() << "\" model has no attention heads to mute");
}

void Model::set_causal(bool on) {
  AL_CHECK(on, "a \"" << kind() << "\" model has no causal mask to lift");
}

}  // namespace attnlab
