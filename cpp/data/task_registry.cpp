// The task registry: one line per task. A new task declares its factory here and adds one
// entry to kTasks.
#include <utility>

#include "core/check.hpp"
#include "data/task.hpp"
#include "models/model.hpp"

namespace attnlab {

using TaskFactory = std::unique_ptr<Task> (*)(const nlohmann::json&);

std::unique_ptr<Task> make_copy_task(const nlohmann::json&);
std::unique_ptr<Task> make_reverse_task(const nlohmann::json&);
std::unique_ptr<Task> make_sort_task(const nlohmann::json&);
std::unique_ptr<Task> make_addition_task(const nlohmann::json&);
std::unique_ptr<Task> make_dates_task(const nlohmann::json&);
std::unique_ptr<Task> make_phrases_task(const nlohmann::json&);
std::unique_ptr<Task> make_text_task(const nlohmann::json&);
std::unique_ptr<Task> make_hull_task(const nlohmann::json&);
std::unique_ptr<Task> make_tsp_task(const nlohmann::json&);
std::unique_ptr<Task> make_point_sort_task(const nlohmann::json&);

namespace {

// clang-format off
const std::pair<const char*, TaskFactory> kTasks[] = {
    {"copy", make_copy_task},
    {"reverse", make_reverse_task},
    {"sort", make_sort_task},
    {"addition", make_addition_task},
    {"dates", make_dates_task},      // date formats of four locales -> ISO 8601
    {"phrases", make_phrases_task},  // English -> French noun phrases, crossing order
    {"text", make_text_task},        // word-level sentences of a text file (language model)
    {"convex-hull", make_hull_task},      // points -> hull vertices (pointer network)
    {"tsp", make_tsp_task},               // cities -> an optimal tour (pointer network)
    {"point-sort", make_point_sort_task}, // reals -> indices in increasing order ("sort" for a
                                          // pointer model: task_for_model)
};
// clang-format on

}  // namespace

std::unique_ptr<Task> make_task(const std::string& name, const nlohmann::json& options) {
  AL_CHECK(options.is_object() || options.is_null(), "task options must be a JSON object");
  const nlohmann::json opts = options.is_null() ? nlohmann::json::object() : options;
  for (const auto& [n, f] : kTasks)
    if (name == n) return f(opts);
  std::string known;
  for (const auto& e : kTasks) known += std::string(known.empty() ? "" : ", ") + e.first;
  AL_CHECK(false, "unknown task \"" << name << "\" (known: " << known << ")");
  return nullptr;
}

std::string point_task_name(const std::string& task) {
  return task == "sort" ? "point-sort" : task;
}

std::string task_for_model(const std::string& task, const std::string& model_kind) {
  const KindInfo* k = find_kind_info(model_kind);
  return k && k->takes_points ? point_task_name(task) : task;
}

std::vector<std::string> task_names() {
  std::vector<std::string> out;
  for (const auto& e : kTasks) out.emplace_back(e.first);
  return out;
}

}  // namespace attnlab
