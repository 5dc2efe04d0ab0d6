#pragma once
// Bounds-checked reader of Kafka's primitive types over a byte buffer.
//
// Errors are sticky: the first out-of-bounds read or malformed varint marks
// the reader failed, and every later read returns a zero value without
// touching memory. Decoders check ok() once at the end (and before any
// allocation whose size comes from the input), which keeps the hot path free
// of branches on every field. Not thread-safe; one reader per decode.

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "protocol/wire/endian.h"
#include "protocol/wire/uuid.h"

namespace hw::protocol {

using bytes_view = std::span<const uint8_t>;

class reader {
 public:
  explicit reader(bytes_view buf) : data_(buf.data()), size_(buf.size()) {}

  bool ok() const { return !failed_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return failed_ ? 0 : size_ - pos_; }
  const char* error() const { return error_; }
  void fail(const char* why) {
    if (!failed_) {
      failed_ = true;
      error_ = why;
    }
  }

  int8_t read_int8() { return static_cast<int8_t>(read_fixed<uint8_t>()); }
  uint8_t read_uint8() { return read_fixed<uint8_t>(); }
  int16_t read_int16() { return static_cast<int16_t>(read_fixed<uint16_t>()); }
  uint16_t read_uint16() { return read_fixed<uint16_t>(); }
  int32_t read_int32() { return static_cast<int32_t>(read_fixed<uint32_t>()); }
  uint32_t read_uint32() { return read_fixed<uint32_t>(); }
  int64_t read_int64() { return static_cast<int64_t>(read_fixed<uint64_t>()); }
  double read_float64() { return std::bit_cast<double>(read_fixed<uint64_t>()); }
  bool read_bool() { return read_fixed<uint8_t>() != 0; }

  uuid read_uuid() {
    uuid u;
    if (!need(16)) return u;
    std::memcpy(u.bytes.data(), data_ + pos_, 16);
    pos_ += 16;
    return u;
  }

  // Unsigned LEB128 of at most 5 bytes (Kafka's UNSIGNED_VARINT).
  uint32_t read_uvarint() {
    uint32_t value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (!need(1)) return 0;
      uint8_t b = data_[pos_++];
      if (shift == 28 && (b & 0xf0) != 0) {
        fail("unsigned varint overflows 32 bits");
        return 0;
      }
      value |= static_cast<uint32_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail("unsigned varint longer than 5 bytes");
    return 0;
  }

  // Unsigned LEB128 of at most 10 bytes.
  uint64_t read_uvarlong() {
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (!need(1)) return 0;
      uint8_t b = data_[pos_++];
      if (shift == 63 && (b & 0xfe) != 0) {
        fail("unsigned varlong overflows 64 bits");
        return 0;
      }
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail("unsigned varlong longer than 10 bytes");
    return 0;
  }

  // Zig-zag encoded signed varints (Kafka's VARINT and VARLONG).
  int32_t read_varint() {
    uint32_t v = read_uvarint();
    return static_cast<int32_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  int64_t read_varlong() {
    uint64_t v = read_uvarlong();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }

  // A view of the next n bytes, or an empty view (and failure) if fewer remain.
  bytes_view read_view(size_t n) {
    if (!need(n)) return {};
    bytes_view v(data_ + pos_, n);
    pos_ += n;
    return v;
  }
  std::string_view read_string_view(size_t n) {
    bytes_view v = read_view(n);
    return {reinterpret_cast<const char*>(v.data()), v.size()};
  }

  void skip(size_t n) { read_view(n); }

  // Element counts from the wire are checked against what remains before a
  // decoder reserves memory: every element takes at least one byte.
  bool plausible_count(size_t n, size_t min_element_bytes = 1) {
    if (n > remaining() / (min_element_bytes ? min_element_bytes : 1)) {
      fail("element count exceeds the remaining bytes");
      return false;
    }
    return true;
  }

  // Narrows the reader to the next n bytes (a tagged field's payload, say);
  // returns a reader over them and advances past them.
  reader sub(size_t n) {
    bytes_view v = read_view(n);
    reader r(v);
    if (failed_) r.fail(error_);
    return r;
  }

 private:
  bool need(size_t n) {
    if (failed_) return false;
    if (n > size_ - pos_) {
      fail("truncated input");
      return false;
    }
    return true;
  }

  template <typename T>
  T read_fixed() {
    if (!need(sizeof(T))) return 0;
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    if constexpr (sizeof(T) > 1) v = byteswap(v);
    return v;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool failed_ = false;
  const char* error_ = nullptr;
};

}  // namespace hw::protocol
