// Model's kind and position limit, and the capabilities as free functions (see model.hpp): a
// model without a stepwise decoder, a causal mask, attention heads or point inputs refuses the
// calls that need one.
#include "models/model.hpp"

#include "core/check.hpp"

namespace attnlab {

std::string Model::kind() const { return config_.value("model", std::string("?")); }

int Model::position_limit() const { return config_.contains("max_len") ? max_len() : 0; }

const TracedTensor& ForwardTrace::at(const std::string& name) const {
  for (const TracedTensor& t : tensors)
    if (t.name == name) return t;
  throw Error("the trace has no tensor named \"" + name + "\"");
}

std::vector<AttentionParts> attention_parts(const Model& m) {
  const HeadInspection* h = capability<HeadInspection>(m);
  return h ? h->attention_parts() : std::vector<AttentionParts>{};
}

void set_muted_heads(Model& m, const HeadMask& mask) {
  if (HeadInspection* h = capability<HeadInspection>(m)) return h->set_muted_heads(mask);
  AL_CHECK(mask.empty(), "a \"" << m.kind() << "\" model has no attention heads to mute");
}

bool has_causal_mask(const Model& m) {
  const HeadInspection* h = capability<HeadInspection>(m);
  return h && h->has_causal_mask();
}

void set_causal(Model& m, bool on) {
  if (HeadInspection* h = capability<HeadInspection>(m)) return h->set_causal(on);
  AL_CHECK(on, "a \"" << m.kind() << "\" model has no causal mask to lift");
}

std::unique_ptr<StepDecoder> step_decoder(Model& m, const std::vector<std::vector<int32_t>>& srcs,
                                          int capacity, int max_steps) {
  IncrementalDecoding* d = capability<IncrementalDecoding>(m);
  return d ? d->step_decoder(srcs, capacity, max_steps) : nullptr;
}

bool decodes_stepwise(const Model& m) { return capability<StepwiseDecoding>(m) != nullptr; }

GreedyDecoded greedy_stepwise(Model& m, const std::vector<std::vector<int32_t>>& srcs,
                              int max_len) {
  StepwiseDecoding* d = capability<StepwiseDecoding>(m);
  AL_CHECK(d, "a \"" << m.kind() << "\" model has no stepwise decoder");
  return d->greedy_stepwise(srcs, max_len);
}

PointDecoded decode_points(Model& m, const std::vector<float>& x, int B, int n, int beam,
                           bool constrained) {
  PointDecoding* d = capability<PointDecoding>(m);
  AL_CHECK(d, "a \"" << m.kind() << "\" model reads token ids, not point sets");
  return d->decode_points(x, B, n, beam, constrained);
}

}  // namespace attnlab
