#pragma once
// Helpers shared by the generated message codecs: Kafka's length-prefixed
// strings, bytes and arrays in their classic (int16/int32 length) and compact
// (unsigned varint length + 1) forms, tagged fields, and views of record sets.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::protocol {

// A tagged field the decoder did not know; kept so it is re-encoded as is.
struct tagged_field {
  uint32_t tag = 0;
  std::vector<uint8_t> data;
  bool operator==(const tagged_field&) const = default;
};
using tagged_fields = std::vector<tagged_field>;

// A record set (a concatenation of record batches) as a view into a buffer
// the caller keeps alive: decoding a Produce request copies no payload.
struct records_view {
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool null = true;
  // Non-zero: the `size` bytes are not in memory; the writer notes where
  // they belong (writer::defer) and the sender sends them from a file
  // (zero-copy fetch responses). data is null then.
  uint32_t deferred_id = 0;

  records_view() = default;
  explicit records_view(bytes_view v) : data(v.data()), size(v.size()), null(false) {}
  static records_view deferred(uint32_t id, size_t size) {
    records_view v;
    v.size = size;
    v.null = false;
    v.deferred_id = id;
    return v;
  }
  bytes_view bytes() const { return {data, size}; }
  bool operator==(const records_view& o) const {
    if (null != o.null || size != o.size || deferred_id != o.deferred_id) return false;
    return deferred_id != 0 || size == 0 || std::memcmp(data, o.data, size) == 0;
  }
};

namespace codec {

// Length or element count: -1 means null. Classic strings use an int16
// length, classic bytes and arrays an int32; compact forms a uvarint of n+1.
inline int32_t read_length(reader& r, bool compact, bool int16_length) {
  if (compact) {
    uint32_t n = r.read_uvarint();
    if (n > 0x7fffffffu) {
      r.fail("compact length out of range");
      return 0;
    }
    return static_cast<int32_t>(n) - 1;
  }
  int32_t n = int16_length ? r.read_int16() : r.read_int32();
  if (n < -1) {
    r.fail("negative length");
    return 0;
  }
  return n;
}

inline void write_length(writer& w, bool compact, bool int16_length, int32_t n) {
  if (compact)
    w.write_uvarint(static_cast<uint32_t>(n + 1));
  else if (int16_length)
    w.write_int16(static_cast<int16_t>(n));
  else
    w.write_int32(n);
}

inline size_t length_size(bool compact, bool int16_length, int32_t n) {
  if (compact) return uvarint_size(static_cast<uint32_t>(n + 1));
  return int16_length ? 2 : 4;
}

// Reads a string; null is reported through `is_null` (the caller decides
// whether null is legal in this version).
inline std::string read_string(reader& r, bool compact, bool& is_null) {
  int32_t n = read_length(r, compact, true);
  is_null = n < 0;
  if (n <= 0) return {};
  return std::string(r.read_string_view(static_cast<size_t>(n)));
}

inline void write_string(writer& w, bool compact, const std::string& s) {
  write_length(w, compact, true, static_cast<int32_t>(s.size()));
  w.write_raw(s);
}
inline void write_null(writer& w, bool compact, bool int16_length) {
  write_length(w, compact, int16_length, -1);
}
inline size_t string_size(bool compact, const std::string& s) {
  return length_size(compact, true, static_cast<int32_t>(s.size())) + s.size();
}

inline std::vector<uint8_t> read_bytes(reader& r, bool compact, bool& is_null) {
  int32_t n = read_length(r, compact, false);
  is_null = n < 0;
  if (n <= 0) return {};
  bytes_view v = r.read_view(static_cast<size_t>(n));
  return std::vector<uint8_t>(v.begin(), v.end());
}
inline void write_bytes(writer& w, bool compact, const std::vector<uint8_t>& b) {
  write_length(w, compact, false, static_cast<int32_t>(b.size()));
  w.write_raw(b.data(), b.size());
}
inline size_t bytes_size(bool compact, const std::vector<uint8_t>& b) {
  return length_size(compact, false, static_cast<int32_t>(b.size())) + b.size();
}

inline records_view read_records(reader& r, bool compact) {
  int32_t n = read_length(r, compact, false);
  if (n < 0) return records_view{};
  return records_view(r.read_view(static_cast<size_t>(n)));
}
inline void write_records(writer& w, bool compact, const records_view& v) {
  if (v.null) {
    write_length(w, compact, false, -1);
    return;
  }
  write_length(w, compact, false, static_cast<int32_t>(v.size));
  if (v.deferred_id != 0)
    w.defer(v.deferred_id, v.size);
  else
    w.write_raw(v.data, v.size);
}
inline size_t records_size(bool compact, const records_view& v) {
  if (v.null) return length_size(compact, false, -1);
  return length_size(compact, false, static_cast<int32_t>(v.size)) + v.size;
}

// An array's element count, checked against what remains before the caller
// allocates: -1 is null.
inline int32_t read_count(reader& r, bool compact) {
  int32_t n = read_length(r, compact, false);
  if (n > 0 && !r.plausible_count(static_cast<size_t>(n))) return 0;
  return n;
}

inline tagged_field read_unknown_tag(uint32_t tag, reader& sub) {
  bytes_view v = sub.read_view(sub.remaining());
  return tagged_field{tag, std::vector<uint8_t>(v.begin(), v.end())};
}
inline void write_unknown_tag(writer& w, const tagged_field& f) {
  w.write_uvarint(f.tag);
  w.write_uvarint(static_cast<uint32_t>(f.data.size()));
  w.write_raw(f.data.data(), f.data.size());
}
inline size_t unknown_tag_size(const tagged_field& f) {
  return uvarint_size(f.tag) + uvarint_size(static_cast<uint32_t>(f.data.size())) + f.data.size();
}

}  // namespace codec
}  // namespace hw::protocol
