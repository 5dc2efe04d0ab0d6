#pragma once
// A coordinator record as its key and its value (none for a tombstone),
// and how consumer- and streams-group records go to and from their bytes:
// the key behind its record type (the int16 where a key's version stands),
// the value behind version 0. Pure; any thread.

#include <cstdint>
#include <optional>
#include <string>

#include "broker/group/coordinator_record.h"
#include "protocol/wire/version_prefixed.h"

namespace hw::broker::group::consumer {

template <class Key, class Value>
struct keyed_record {
  Key key;
  std::optional<Value> value;
  bool operator==(const keyed_record&) const = default;
};

inline constexpr int16_t keyed_value_version = 0;

// A member's record deleted: its key, no value.
template <class Record>
Record member_tombstone(const std::string& group_id, const std::string& member_id) {
  Record r;
  r.key.group_id = group_id;
  r.key.member_id = member_id;
  return r;
}

template <class Record>
coordinator_record encode_keyed(const Record& r, int16_t record_type) {
  coordinator_record out;
  out.key = protocol::encode_version_prefixed(r.key, record_type);
  if (r.value) out.value = protocol::encode_version_prefixed(*r.value, keyed_value_version);
  return out;
}

// nullopt when either part does not decode as this record type's.
template <class Record>
std::optional<Record> decode_keyed(byte_view key, std::optional<byte_view> value, int16_t record_type) {
  Record out;
  auto k = protocol::decode_version_prefixed<decltype(out.key)>(key, record_type, record_type);
  if (!k) return std::nullopt;
  out.key = std::move(*k);
  if (value) {
    out.value = protocol::decode_version_prefixed<typename decltype(out.value)::value_type>(
        *value, keyed_value_version, keyed_value_version);
    if (!out.value) return std::nullopt;
  }
  return out;
}

}  // namespace hw::broker::group::consumer
