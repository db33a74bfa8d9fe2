// JSON from outside the engine (configs from JS or the CLI, checkpoint metadata) is parsed only
// through parse_json: the text's size and nesting depth are checked by a linear scan before
// the parser sees it, so a hostile document is refused with a message naming the limit instead
// of exhausting the stack (copies and destructors of nlohmann::json recurse) or the heap.
//   kMaxJsonBytes  16 MiB   (a model config is under 1 KiB; a BPE vocabulary in a checkpoint's
//                            metadata is a few hundred KiB)
//   kMaxJsonDepth  64       (configs nest three levels)
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attnlab {

constexpr size_t kMaxJsonBytes = size_t(16) << 20;
constexpr int kMaxJsonDepth = 64;

// Throws attnlab::Error("<what>: ...") when the text is too large, too deep or not valid JSON.
// An empty text parses as {} when empty_is_object is set.
nlohmann::json parse_json(std::string_view text, const std::string& what,
                          bool empty_is_object = false);
// As parse_json, and the result must be a JSON object.
nlohmann::json parse_json_object(std::string_view text, const std::string& what,
                                 bool empty_is_object = false);
// The deepest nesting of objects and arrays in `text` (strings skipped), stopping early once
// it exceeds `limit`.
int json_depth(std::string_view text, int limit = kMaxJsonDepth);

}  // namespace attnlab
