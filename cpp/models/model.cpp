// The defaults of Model's optional capabilities (see model.hpp): a model without a stepwise
// decoder or a causal mask refuses the calls that need one.
#include "models/model.hpp"

#include "core/check.hpp"

namespace attnlab {

GreedyDecoded Model::greedy_stepwise(const std::vector<std::vector<int32_t>>&, int) {
  AL_CHECK(false, "a \"" << config_.value("model", std::string("?"))
                         << "\" model has no stepwise decoder");
  return {};
}

void Model::set_causal(bool on) {
  AL_CHECK(on, "a \"" << config_.value("model", std::string("?"))
                      << "\" model has no causal mask to lift");
}

}  // namespace attnlab
