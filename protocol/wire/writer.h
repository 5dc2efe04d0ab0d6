#pragma once
// Appends Kafka's primitive types to a byte vector, big-endian.
//
// Encoders compute their exact size first (encoded_size) and reserve it, so a
// message is written with one allocation. Not thread-safe.

#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/wire/endian.h"
#include "protocol/wire/uuid.h"

namespace hw::protocol {

// Bytes a message holds by reference only (records_view::deferred): they
// belong at `at` in the output, which the writer skips.
struct deferred_bytes {
  size_t at = 0;
  uint32_t id = 0;
  size_t size = 0;
};

class writer {
 public:
  explicit writer(std::vector<uint8_t>& out, std::vector<deferred_bytes>* deferred = nullptr)
      : out_(out), deferred_(deferred) {}

  size_t position() const { return out_.size(); }
  std::vector<uint8_t>& buffer() { return out_; }

  void write_int8(int8_t v) { out_.push_back(static_cast<uint8_t>(v)); }
  void write_uint8(uint8_t v) { out_.push_back(v); }
  void write_int16(int16_t v) { write_fixed(static_cast<uint16_t>(v)); }
  void write_uint16(uint16_t v) { write_fixed(v); }
  void write_int32(int32_t v) { write_fixed(static_cast<uint32_t>(v)); }
  void write_uint32(uint32_t v) { write_fixed(v); }
  void write_int64(int64_t v) { write_fixed(static_cast<uint64_t>(v)); }
  void write_float64(double v) { write_fixed(std::bit_cast<uint64_t>(v)); }
  void write_bool(bool v) { out_.push_back(v ? 1 : 0); }
  void write_uuid(const uuid& u) { write_raw(u.bytes.data(), 16); }

  void write_uvarint(uint32_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }
  void write_uvarlong(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }
  void write_varint(int32_t v) {
    write_uvarint((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
  }
  void write_varlong(int64_t v) {
    write_uvarlong((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  void write_raw(const void* p, size_t n) {
    auto b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void write_raw(std::span<const uint8_t> v) { write_raw(v.data(), v.size()); }
  void write_raw(std::string_view s) { write_raw(s.data(), s.size()); }

  // Notes that `size` bytes known by `id` go here; writes nothing. Only a
  // writer given a deferred list takes them.
  void defer(uint32_t id, size_t size) {
    assert(deferred_ && "deferred bytes need a writer with a deferred list");
    deferred_->push_back({out_.size(), id, size});
  }

  // Overwrites a big-endian int32 written earlier (a length prefix).
  void patch_int32(size_t at, int32_t v) {
    uint32_t be = byteswap(static_cast<uint32_t>(v));
    std::memcpy(out_.data() + at, &be, 4);
  }

 private:
  template <typename T>
  void write_fixed(T v) {
    if constexpr (sizeof(T) > 1) v = byteswap(v);
    size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }

  std::vector<uint8_t>& out_;
  std::vector<deferred_bytes>* deferred_;
};

// Sizes of the variable-length encodings, for encoded_size().
constexpr size_t uvarint_size(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
constexpr size_t uvarlong_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
constexpr size_t varint_size(int32_t v) {
  return uvarint_size((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}
constexpr size_t varlong_size(int64_t v) {
  return uvarlong_size((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

}  // namespace hw::protocol
