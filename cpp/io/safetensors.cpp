// .safetensors parsing and writing (see safetensors.hpp). Hosts are little-endian (x86-64,
// ARM64, WebAssembly), so tensor bytes are copied as they are.
#include "io/safetensors.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/check.hpp"
#include "core/json.hpp"

namespace attnlab {

namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // 100 MB of JSON is not a checkpoint

}  // namespace

size_t dtype_size(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

int64_t StTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

uint16_t f32_to_f16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t absu = u & 0x7fffffffu;
  if (absu >= 0x7f800000u)  // inf, NaN (a quiet NaN keeps its top payload bits)
    return uint16_t(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u | ((absu >> 13) & 0x3ffu) : 0u));
  if (absu >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds past 65504: inf
  if (absu < 0x38800000u) {                         // below 2^-14: a half subnormal (or zero)
    if (absu < 0x33000000u) return uint16_t(sign);  // below half the smallest subnormal
    const uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
    const int shift = 126 - int(absu >> 23);  // 14..24
    const uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    return uint16_t(sign | (q + (rem > half || (rem == half && (q & 1u)))));
  }
  const uint32_t rebased = absu - (112u << 23);  // exponent bias 127 -> 15
  const uint32_t q = rebased >> 13, rem = rebased & 0x1fffu;
  return uint16_t(sign | (q + (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))));
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t u;
  if (e == 0x1f) {
    u = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    u = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    u = sign;
  } else {  // subnormal: m * 2^-24
    const float v = float(m) * 5.9604644775390625e-8f;
    std::memcpy(&u, &v, 4);
    u |= sign;
  }
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

std::vector<float> StTensor::to_f32() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  if (dtype == "F32") {
    if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * 4);
  } else if (dtype == "F16" || dtype == "BF16") {
    for (size_t i = 0; i < out.size(); ++i) {
      uint16_t h;
      std::memcpy(&h, data.data() + 2 * i, 2);
      if (dtype == "F16") {
        out[i] = f16_to_f32(h);
      } else {
        const uint32_t u = uint32_t(h) << 16;
        std::memcpy(&out[i], &u, 4);
      }
    }
  } else {
    AL_CHECK(false, "tensor " << name << " has dtype " << dtype << ", expected F32, F16 or BF16");
  }
  return out;
}

void SafeTensors::add_f16(const std::string& name, std::vector<int64_t> shape,
                          const float* values) {
  StTensor t;
  t.name = name;
  t.dtype = "F16";
  t.shape = std::move(shape);
  t.data.resize(size_t(t.numel()) * 2);
  for (size_t i = 0; i < size_t(t.numel()); ++i) {
    const uint16_t h = f32_to_f16(values[i]);
    AL_CHECK(
        !std::isfinite(values[i]) || (h & 0x7c00u) != 0x7c00u,
        "tensor " << name << " holds " << values[i] << ", beyond half precision's range (65504)");
    std::memcpy(t.data.data() + 2 * i, &h, 2);
  }
  tensors.push_back(std::move(t));
}

const StTensor* SafeTensors::find(const std::string& name) const {
  for (const StTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

void SafeTensors::add_f32(const std::string& name, std::vector<int64_t> shape,
                          const float* values) {
  StTensor t;
  t.name = name;
  t.dtype = "F32";
  t.shape = std::move(shape);
  t.data.resize(size_t(t.numel()) * 4);
  if (!t.data.empty()) std::memcpy(t.data.data(), values, t.data.size());
  tensors.push_back(std::move(t));
}

SafeTensors parse_safetensors(const uint8_t* bytes, size_t n) {
  AL_CHECK(n >= 8,
           "not a safetensors file: " << n << " bytes, shorter than the 8-byte header length");
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = (hlen << 8) | bytes[i];
  AL_CHECK(hlen <= kMaxHeader, "safetensors header length " << hlen << " is implausibly large");
  AL_CHECK(hlen <= n - 8, "truncated safetensors file: header needs " << hlen << " bytes, " << n - 8
                                                                      << " present");
  const char* hb = reinterpret_cast<const char*>(bytes + 8);
  const nlohmann::json h =
      parse_json_object(std::string_view(hb, size_t(hlen)), "safetensors header");
  const uint8_t* data = bytes + 8 + hlen;
  const uint64_t dlen = n - 8 - hlen;
  SafeTensors st;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& e = it.value();
    if (name == "__metadata__") {
      AL_CHECK(e.is_object(), "__metadata__ must be an object of strings");
      for (auto m = e.begin(); m != e.end(); ++m) {
        AL_CHECK(m.value().is_string(), "__metadata__ value \"" << m.key() << "\" is not a string");
        st.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    AL_CHECK(e.is_object(), "tensor entry " << name << " is not an object");
    AL_CHECK(e.contains("dtype") && e["dtype"].is_string(), "tensor " << name << " lacks a dtype");
    AL_CHECK(e.contains("shape") && e["shape"].is_array(), "tensor " << name << " lacks a shape");
    AL_CHECK(
        e.contains("data_offsets") && e["data_offsets"].is_array() && e["data_offsets"].size() == 2,
        "tensor " << name << " lacks data_offsets [begin, end]");
    StTensor t;
    t.name = name;
    t.dtype = e["dtype"].get<std::string>();
    const size_t es = dtype_size(t.dtype);
    AL_CHECK(es, "tensor " << name << " has unknown dtype " << t.dtype);
    uint64_t count = 1;
    for (const auto& d : e["shape"]) {
      AL_CHECK(d.is_number_unsigned(),
               "tensor " << name << " has a non-integer or negative dimension");
      const uint64_t v = d.get<uint64_t>();
      AL_CHECK(v == 0 || count <= dlen / v, "tensor " << name << " shape exceeds the file's data");
      count *= v;
      t.shape.push_back(int64_t(v));
    }
    const auto& off = e["data_offsets"];
    AL_CHECK(off[0].is_number_unsigned() && off[1].is_number_unsigned(),
             "tensor " << name << " has non-integer data_offsets");
    const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
    AL_CHECK(b <= en && en <= dlen, "tensor " << name << " data_offsets [" << b << ", " << en
                                              << "] fall outside the " << dlen << " data bytes");
    AL_CHECK(en - b == count * es,
             "tensor " << name << " has " << en - b << " bytes, its shape needs " << count * es);
    ranges.emplace_back(b, en);
    t.data.assign(data + b, data + en);
    st.tensors.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    AL_CHECK(ranges[i].first >= ranges[i - 1].second, "safetensors tensors overlap");
  // File order = offset order, so a round trip keeps the writer's order.
  std::stable_sort(st.tensors.begin(), st.tensors.end(), [&](const StTensor& a, const StTensor& c) {
    const auto& ea = h.at(a.name).at("data_offsets")[0];
    const auto& ec = h.at(c.name).at("data_offsets")[0];
    return ea.get<uint64_t>() < ec.get<uint64_t>();
  });
  return st;
}

SafeTensors read_safetensors(const std::string& path) {
  std::error_code ec;
  AL_CHECK(std::filesystem::exists(path, ec), "cannot open " << path << ": no such file");
  AL_CHECK(std::filesystem::is_regular_file(path, ec),
           "cannot read " << path << ": not a regular file");
  std::ifstream f(path, std::ios::binary);
  AL_CHECK(f, "cannot open " << path);
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  AL_CHECK(size >= 0, "cannot read " << path);
  f.seekg(0, std::ios::beg);
  std::vector<uint8_t> buf(static_cast<size_t>(size));
  if (size > 0) f.read(reinterpret_cast<char*>(buf.data()), size);
  AL_CHECK(f, "cannot read " << path);
  try {
    return parse_safetensors(buf.data(), buf.size());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

std::vector<uint8_t> serialize_safetensors(const SafeTensors& st) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!st.metadata.empty()) h["__metadata__"] = st.metadata;
  uint64_t off = 0;
  for (const StTensor& t : st.tensors) {
    h[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {off, off + t.data.size()}}};
    off += t.data.size();
  }
  std::string js = h.dump();
  while ((js.size() + 8) % 8) js.push_back(' ');  // align the data to 8 bytes
  std::vector<uint8_t> out(8 + js.size() + off);
  const uint64_t n = js.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = uint8_t(n >> (8 * i));
  std::memcpy(out.data() + 8, js.data(), js.size());
  size_t p = 8 + js.size();
  for (const StTensor& t : st.tensors) {
    if (!t.data.empty()) std::memcpy(out.data() + p, t.data.data(), t.data.size());
    p += t.data.size();
  }
  return out;
}

void write_safetensors(const std::string& path, const SafeTensors& st) {
  const std::vector<uint8_t> bytes = serialize_safetensors(st);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  AL_CHECK(f, "cannot write " << path);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  f.close();
  AL_CHECK(f, "cannot write " << path);
}

namespace {

// "<path>.tmp.<pid>.<n>": unique per process and call, in path's own folder (so the rename
// stays on one file system), so two writers of one path never share a temporary file.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned long> counter{0};
  return path + ".tmp." + std::to_string(long(getpid())) + "." + std::to_string(counter++);
}

}  // namespace

void write_safetensors_atomic(const std::string& path, const SafeTensors& st) {
  std::error_code ec;
  AL_CHECK(!std::filesystem::is_directory(path, ec),
           "cannot write " << path << ": it is a directory");
  const std::string tmp = temp_name(path);
  try {
    write_safetensors(tmp, st);
    AL_CHECK(std::rename(tmp.c_str(), path.c_str()) == 0,
             "cannot rename " << tmp << " to " << path);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

void check_writable(const std::string& path) {
  std::error_code ec;
  AL_CHECK(!path.empty(), "cannot write an empty path");
  AL_CHECK(!std::filesystem::is_directory(path, ec),
           "cannot write " << path << ": it is a directory");
  const std::string tmp = temp_name(path);
  const bool ok = std::ofstream(tmp, std::ios::binary | std::ios::trunc).good();
  std::remove(tmp.c_str());
  AL_CHECK(ok, "cannot write " << path << " (its folder is missing or not writable)");
}

}  // namespace attnlab
