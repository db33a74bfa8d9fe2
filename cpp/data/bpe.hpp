// Byte-pair-encoding subword vocabulary (Sennrich et al. 2016), shared by source and target as
// in the Transformer paper. Words are whitespace-separated and carry a leading "▁" (U+2581), so
// decode(encode(text)) gives back the text with its whitespace runs collapsed to one space.
// Characters never seen in training fall back to byte tokens <0xNN>: encoding never fails.
// The whole vocabulary (tokens + merge list) serialises to one JSON string for checkpoints.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnlab {

class Bpe {
 public:
  // Special ids, fixed in every vocabulary.
  static constexpr int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;

  // Learns merges from `texts` until the vocabulary holds `vocab_size` tokens (specials, 256
  // byte tokens and the characters seen count towards it) or no pair occurs `min_count` times.
  static Bpe train(const std::vector<std::string>& texts, int vocab_size, int min_count = 2);
  static Bpe from_json(const std::string& json);
  std::string to_json() const;

  std::vector<int32_t> encode(const std::string& text) const;  // no BOS/EOS added
  std::string decode(const std::vector<int32_t>& ids) const;   // specials skipped; valid UTF-8
  // `s` with each byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD.
  static std::string valid_utf8(const std::string& s);
  int size() const { return int(tokens_.size()); }
  const std::string& token(int32_t id) const { return tokens_.at(size_t(id)); }
  size_t num_merges() const { return merges_.size(); }

 private:
  void build_index();
  std::vector<int32_t> encode_word(const std::string& word) const;

  std::vector<std::string> tokens_;                   // id -> text ("<0x41>" for bytes)
  std::vector<std::pair<int32_t, int32_t>> merges_;   // rank -> (left, right); result id
  std::vector<int32_t> merge_result_;                 // rank -> merged token id
  std::unordered_map<std::string, int32_t> by_text_;  // token text -> id (not bytes)
  std::unordered_map<uint64_t, int32_t> rank_;        // (left, right) -> merge rank
};

}  // namespace attnlab
