// .safetensors read/write: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}),
// then the raw little-endian tensor bytes. The parser trusts nothing: header length, JSON
// syntax, every key's type, dtype names, shape products (overflow), offsets (inside the data,
// matching the shape, non-overlapping) are checked, each failure an attnlab::Error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab {

struct StTensor {
  std::string name;
  std::string dtype;  // "F32", "F64", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // raw little-endian bytes
  int64_t numel() const;
  std::vector<float> to_f32() const;  // F32, F16 or BF16 (throws otherwise)
};

struct SafeTensors {
  std::map<std::string, std::string> metadata;
  std::vector<StTensor> tensors;  // in file order (serialised in this order)
  const StTensor* find(const std::string& name) const;
  void add_f32(const std::string& name, std::vector<int64_t> shape, const float* values);
  // IEEE binary16, rounded to nearest even; throws when a finite value is beyond its range.
  void add_f16(const std::string& name, std::vector<int64_t> shape, const float* values);
};

// IEEE 754 binary16 <-> binary32 (round to nearest, ties to even; subnormals, inf and NaN kept).
uint16_t f32_to_f16(float x);
float f16_to_f32(uint16_t h);

size_t dtype_size(const std::string& dtype);  // 0 for an unknown dtype
SafeTensors parse_safetensors(const uint8_t* bytes, size_t n);
SafeTensors read_safetensors(const std::string& path);
std::vector<uint8_t> serialize_safetensors(const SafeTensors& st);
void write_safetensors(const std::string& path, const SafeTensors& st);
// write_safetensors to a temporary file unique to this process and call (path + ".tmp.<pid>.<n>"),
// then rename over path: a reader (or a run killed while writing) sees the old file or the new
// one, never a part of one, and two writers of one path never publish each other's bytes. A
// failed write removes its temporary file.
void write_safetensors_atomic(const std::string& path, const SafeTensors& st);
// Fails (attnlab::Error, one line) when write_safetensors_atomic(path) could not succeed: path
// is a directory, or its folder is missing or not writable. Trainers call it before step one.
void check_writable(const std::string& path);

}  // namespace attnlab
