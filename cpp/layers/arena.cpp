// ParamArena and Workspace (see arena.hpp).
#include "layers/arena.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"

namespace attnlab {

ParamArena::~ParamArena() {
  if (values_ && owns_values_) kt_->release(values_);
  if (grads_) kt_->release(grads_);
}

int ParamArena::add(const std::string& name, std::vector<int> shape, Init init, float a) {
  AL_CHECK(!values_, "parameter " << name << " declared after allocation");
  AL_CHECK(find(name) < 0, "duplicate parameter name " << name);
  ParamInfo p;
  p.name = name;
  p.numel = 1;
  for (int d : shape) {
    AL_CHECK(d > 0, "parameter " << name << " has a non-positive dimension");
    p.numel *= d;
  }
  p.shape = std::move(shape);
  p.offset = total_;
  p.init = init;
  p.a = a;
  total_ += (size_t(p.numel) + 15) / 16 * 16;  // 64-byte aligned views
  params_.push_back(std::move(p));
  return int(params_.size()) - 1;
}

namespace {
size_t g_param_limit = size_t(1) << 30;
}  // namespace

void ParamArena::set_limit(size_t floats) { g_param_limit = floats; }

void ParamArena::allocate(Rng& rng) {
  AL_CHECK(!values_, "parameters allocated twice");
  AL_CHECK(total_ <= g_param_limit,
           "the model needs " << total_ << " parameters, above the limit of " << g_param_limit);
  const size_t bytes = (total_ ? total_ : 1) * sizeof(float);
  values_ = static_cast<float*>(kt_->alloc(bytes));
  grads_ = static_cast<float*>(kt_->alloc(bytes));
  std::vector<float> host(total_, 0.f);
  for (const ParamInfo& p : params_) {
    float* v = host.data() + p.offset;
    switch (p.init) {
      case Init::Zeros:
        break;
      case Init::Ones:
        for (long i = 0; i < p.numel; ++i) v[i] = 1.f;
        break;
      case Init::Normal:
        for (long i = 0; i < p.numel; ++i) v[i] = rng.normal() * p.a;
        break;
      case Init::Uniform:
        for (long i = 0; i < p.numel; ++i) v[i] = rng.uniform(-p.a, p.a);
        break;
      case Init::XavierUniform: {
        // fan_out = shape[0], fan_in = product of the rest (PyTorch's convention for [out, in])
        const double fan_out = p.shape[0], fan_in = double(p.numel) / p.shape[0];
        const float bound = float(p.a * std::sqrt(6.0 / (fan_in + fan_out)));
        for (long i = 0; i < p.numel; ++i) v[i] = rng.uniform(-bound, bound);
        break;
      }
    }
  }
  if (!host.empty()) kt_->upload(values_, host.data(), host.size() * sizeof(float));
}

void ParamArena::share_values(const ParamArena& master) {
  AL_CHECK(values_ && master.values_, "share_values: both arenas must be allocated");
  AL_CHECK(kt_ == master.kt_, "share_values: the arenas live on different backends");
  bool same = total_ == master.total_ && params_.size() == master.params_.size();
  for (size_t i = 0; same && i < params_.size(); ++i)
    same =
        params_[i].name == master.params_[i].name && params_[i].offset == master.params_[i].offset;
  AL_CHECK(same, "share_values: the arenas hold different parameters");
  if (owns_values_) kt_->release(values_);
  values_ = master.values_;
  owns_values_ = false;
}

void ParamArena::grads_ready(int first, int last) const {
  AL_CHECK(0 <= first && first <= last && last <= count(),
           "parameters [" << first << ", " << last << ") of " << count() << " reported ready");
  if (!grads_ready_ || first == last) return;
  const size_t begin = params_[size_t(first)].offset;
  const size_t end = last < count() ? params_[size_t(last)].offset : total_;
  grads_ready_(begin, end - begin);
}

int ParamArena::find(const std::string& name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return int(i);
  return -1;
}

void ParamArena::zero_grad() const {
  if (grads_) kt_->zero(grads_, total_ * sizeof(float));
}

Workspace::~Workspace() {
  for (Chunk& c : chunks_) kt_->release(c.p);
}

void Workspace::reset() {
  size_t cap = 0;
  for (const Chunk& c : chunks_) cap += c.cap;
  if (chunks_.size() > 1) {
    for (Chunk& c : chunks_) kt_->release(c.p);
    chunks_.clear();
    chunks_.push_back({static_cast<float*>(kt_->alloc(cap * sizeof(float))), cap, 0});
  }
  for (Chunk& c : chunks_) c.used = 0;
}

float* Workspace::floats(size_t n) {
  n = (n + 15) / 16 * 16;
  if (n == 0) n = 16;
  for (Chunk& c : chunks_)
    if (c.cap - c.used >= n) {
      float* p = c.p + c.used;
      c.used += n;
      return p;
    }
  size_t cap = std::max(n, capacity() + (size_t(1) << 16));
  chunks_.push_back({static_cast<float*>(kt_->alloc(cap * sizeof(float))), cap, n});
  return chunks_.back().p;
}

size_t Workspace::capacity() const {
  size_t cap = 0;
  for (const Chunk& c : chunks_) cap += c.cap;
  return cap;
}

}  // namespace attnlab
