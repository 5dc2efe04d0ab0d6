#pragma once
// Test support for the generated message dumps (protocol/messages/testing/
// dump.h): a decoded message as a flat list of (field path, value) lines,
// e.g. `responses[0].partitions[1].error_code = 1`, so that two brokers'
// answers can be compared field by field. Values are shown as text: numbers
// in decimal, strings quoted, bytes in hex, UUIDs in Kafka's base64, null as
// `null`, arrays as `[n]` followed by their elements. A records field shows
// its byte length, then every batch header field and every record (decoded,
// decompressed if need be), so that a difference names the batch and field.
// Linked only into tests (hw_protocol_dump); header-only, pure functions.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/records/batch_error.h"
#include "protocol/records/record_batch.h"
#include "protocol/wire/codec.h"
#include "protocol/wire/uuid.h"

namespace hw::protocol::testing {

struct dump_line {
  std::string path;
  std::string value;
  bool operator==(const dump_line&) const = default;
};
using dump_lines = std::vector<dump_line>;

inline std::string dump_at(const std::string& prefix, const char* name) {
  return prefix.empty() ? std::string(name) : prefix + "." + name;
}
inline std::string dump_index(const std::string& prefix, size_t i) {
  return prefix + "[" + std::to_string(i) + "]";
}

inline std::string show_int(int64_t v) { return std::to_string(v); }
inline std::string show_bool(bool v) { return v ? "true" : "false"; }
inline std::string show_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
inline std::string show_uuid(const uuid& u) { return u.to_string(); }

inline std::string show_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Long byte strings are cut: a difference past the first bytes still shows
// in the length, and the records dump covers the large payloads.
inline std::string show_bytes(bytes_view b) {
  constexpr size_t k_shown = 96;
  std::string out = "0x";
  char buf[4];
  for (size_t i = 0; i < b.size() && i < k_shown; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    out += buf;
  }
  if (b.size() > k_shown) out += "...";
  return out + " (" + std::to_string(b.size()) + " bytes)";
}
inline std::string show_bytes(const std::vector<uint8_t>& b) { return show_bytes(bytes_view(b.data(), b.size())); }

inline void dump_unknown_tags(const tagged_fields& tags, const std::string& prefix, dump_lines& out) {
  for (const auto& t : tags)
    out.push_back({dump_at(prefix, "_tag") + std::to_string(t.tag),
                   show_bytes(bytes_view(t.data.data(), t.data.size()))});
}

inline void dump_record(const record_view& rec, const std::string& q, dump_lines& out) {
  out.push_back({dump_at(q, "offset_delta"), show_int(rec.offset_delta)});
  out.push_back({dump_at(q, "timestamp_delta"), show_int(rec.timestamp_delta)});
  out.push_back({dump_at(q, "key"), rec.key ? show_bytes(*rec.key) : "null"});
  out.push_back({dump_at(q, "value"), rec.value ? show_bytes(*rec.value) : "null"});
  out.push_back({dump_at(q, "headers"), show_int(rec.header_count)});
}

inline void dump_batch(const record_batch_view& b, const std::string& q, dump_lines& out) {
  out.push_back({dump_at(q, "base_offset"), show_int(b.base_offset())});
  out.push_back({dump_at(q, "batch_length"), show_int(b.batch_length())});
  out.push_back({dump_at(q, "partition_leader_epoch"), show_int(b.partition_leader_epoch())});
  out.push_back({dump_at(q, "magic"), show_int(b.magic())});
  out.push_back({dump_at(q, "crc_ok"), show_bool(b.crc_ok())});
  out.push_back({dump_at(q, "attributes"), show_int(b.attributes())});
  out.push_back({dump_at(q, "last_offset_delta"), show_int(b.last_offset_delta())});
  out.push_back({dump_at(q, "base_timestamp"), show_int(b.base_timestamp())});
  out.push_back({dump_at(q, "max_timestamp"), show_int(b.max_timestamp())});
  out.push_back({dump_at(q, "producer_id"), show_int(b.producer_id())});
  out.push_back({dump_at(q, "producer_epoch"), show_int(b.producer_epoch())});
  out.push_back({dump_at(q, "base_sequence"), show_int(b.base_sequence())});
  out.push_back({dump_at(q, "record_count"), show_int(b.record_count())});
  if (b.magic() != batch_layout::current_magic) return;
  std::vector<uint8_t> scratch;
  record_iterator it;
  batch_error e = b.validate();
  if (e == batch_error::none) e = b.open_records(scratch, 64u << 20, it);
  if (e == batch_error::none) {
    record_view rec;
    for (size_t j = 0; it.next(rec); ++j) dump_record(rec, dump_index(dump_at(q, "record"), j), out);
    e = it.error();
  }
  if (e != batch_error::none) out.push_back({dump_at(q, "error"), std::string(batch_error_name(e))});
}

// A records field: null, or its length and then each complete batch; a
// partial batch at the end (Fetch stops at a byte limit) shows as its size.
inline void dump_records(const records_view& r, const std::string& q, dump_lines& out) {
  if (r.null) {
    out.push_back({q, "null"});
    return;
  }
  out.push_back({q, "<" + std::to_string(r.size) + " bytes>"});
  if (r.deferred_id != 0 || r.size == 0) return;
  record_batch_walker walker(r.bytes());
  record_batch_view b;
  size_t i = 0;
  while (walker.next(b)) dump_batch(b, dump_index(dump_at(q, "batch"), i++), out);
  out.push_back({dump_at(q, "batches"), show_int(static_cast<int64_t>(i))});
  if (walker.partial_tail_bytes() != 0)
    out.push_back({dump_at(q, "partial_tail_bytes"), show_int(static_cast<int64_t>(walker.partial_tail_bytes()))});
  if (walker.error() != batch_error::none)
    out.push_back({dump_at(q, "walk_error"), std::string(batch_error_name(walker.error()))});
}

}  // namespace hw::protocol::testing
