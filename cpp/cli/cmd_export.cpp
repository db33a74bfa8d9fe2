// attn export --checkpoint C --out D [--half]: a copy of a checkpoint for inference and the page.
// Optimizer state ("optimizer.*", written by long runs so they can resume) is left out; with
// --half every float32 tensor is stored as IEEE binary16 (half the bytes; the loaders widen it
// back to float32). A tied weight is written once: its second name (generator.weight of a model
// with tie_embeddings, which the loaders fill from tgt_embed.weight) is left out. The metadata
// (model config, vocabulary) is kept as it is.
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "kernels/kernels.hpp"

namespace attnlab::cli {

int cmd_export(Args& a) {
  const std::string in = a.need("checkpoint");
  const std::string out = a.need("out");
  const bool half = a.flag("half");
  a.finish();
  check_writable(out);
  const SafeTensors src = read_safetensors(in);
  const auto model =
      model_from_safetensors(src, cpu_kernels(), nullptr);  // one the engine can load
  std::set<std::string> aliases;
  for (const auto& [name, id] : model->aliases()) aliases.insert(name);
  SafeTensors dst;
  dst.metadata = src.metadata;
  long dropped = 0, tied = 0;
  for (const StTensor& t : src.tensors) {
    if (t.name.rfind("optimizer.", 0) == 0) {
      ++dropped;
      continue;
    }
    if (aliases.count(t.name)) {
      ++tied;
      continue;
    }
    if (half && t.dtype == "F32") {
      const std::vector<float> v = t.to_f32();
      dst.add_f16(t.name, t.shape, v.data());
    } else {
      dst.tensors.push_back(t);
    }
  }
  write_safetensors_atomic(out, dst);
  const double before = double(std::filesystem::file_size(in)),
               after = double(std::filesystem::file_size(out));
  std::fprintf(stderr, "wrote %s: %zu tensors%s, %.1f KiB (from %.1f KiB%s%s)\n", out.c_str(),
               dst.tensors.size(), half ? " in float16" : "", after / 1024.0, before / 1024.0,
               dropped ? ", optimizer state left out" : "",
               tied ? ", tied weights written once" : "");
  return 0;
}

}  // namespace attnlab::cli
