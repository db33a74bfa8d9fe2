// Size- and depth-checked JSON parsing (see json.hpp).
#include "core/json.hpp"

#include "core/check.hpp"

namespace attnlab {

int json_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, const std::string& what, bool empty_is_object) {
  if (text.empty() && empty_is_object) return nlohmann::json::object();
  AL_CHECK(text.size() <= kMaxJsonBytes, what << ": JSON of " << text.size()
                                              << " bytes is larger than the limit of "
                                              << kMaxJsonBytes << " bytes");
  AL_CHECK(json_depth(text) <= kMaxJsonDepth,
           what << ": JSON nested deeper than the limit of " << kMaxJsonDepth << " levels");
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  AL_CHECK(!j.is_discarded(), what << ": not valid JSON");
  return j;
}

nlohmann::json parse_json_object(std::string_view text, const std::string& what,
                                 bool empty_is_object) {
  nlohmann::json j = parse_json(text, what, empty_is_object);
  AL_CHECK(j.is_object(), what << ": expected a JSON object");
  return j;
}

}  // namespace attnlab
