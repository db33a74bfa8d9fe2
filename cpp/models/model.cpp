// The defaults of Model's optional capabilities (see model.hpp): a model without a stepwise
// decoder, a causal mask, attention heads or point inputs refuses the calls that need one.
#include "models/model.hpp"

#include "core/check.hpp"

namespace attnlab {

GreedyDecoded Model::greedy_stepwise(const std::vector<std::vector<int32_t>>&, int) {
  AL_CHECK(false, "a \"" << config_.value("model", std::string("?"))
                         << "\" model has no stepwise decoder");
  return {};
}

PointDecoded Model::decode_points(const std::vector<float>&, int, int, int, bool) {
  AL_CHECK(false, "a \"" << config_.value("model", std::string("?"))
                         << "\" model reads token ids, not point sets");
  return {};
}

void Model::set_muted_heads(const HeadMask& mask) {
  AL_CHECK(mask.empty(), "a \"" << config_.value("model", std::string("?"))
                                << "\" model has no attention heads to mute");
}

void Model::set_causal(bool on) {
  AL_CHECK(on, "a \"" << config_.value("model", std::string("?"))
                      << "\" model has no causal mask to lift");
}

}  // namespace attnlab
