// attn's data-parallel job (see data_parallel.hpp).
#include "cli/data_parallel.hpp"

#include <string>

#include "core/check.hpp"
#include "layers/arena.hpp"

namespace attnlab::cli {

namespace {
World* g_world = nullptr;
}

void set_world(World* w) { g_world = w; }
const World* world() { return g_world; }

DataParallelRun::DataParallelRun(Args& a, bool cuda) {
  const std::string id_file = a.str("nccl-id-file", "");
  comm_ = make_communicator(g_world ? g_world->info() : WorldInfo{}, cuda, id_file);
  sync_ = std::make_unique<BucketedGradientSync>(*comm_);
}

DataParallelRun::~DataParallelRun() = default;

void DataParallelRun::check_same(const nlohmann::json& options, const ParamArena& P) {
  if (size() == 1) return;
  const std::string text = options.dump();
  require_same_on_all_ranks(*comm_, fnv1a(text.data(), text.size()),
                            "the training options (flags, config, task)");
  require_same_on_all_ranks(*comm_, param_checksum(P), "the initial parameters");
}

bool DataParallelRun::any(bool flag) {
  if (size() == 1) return flag;
  return comm_->allreduce_int64(flag ? 1 : 0, ReduceOp::Max) != 0;
}

}  // namespace attnlab::cli
