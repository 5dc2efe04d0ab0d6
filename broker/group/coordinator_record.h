#pragma once
// One `__consumer_offsets` record as the group coordinator writes it: the
// key (int16 record type, then the key struct) and the value (int16 value
// version, then the value struct), a missing value being a tombstone.
// Shared by the classic (group_records.h) and consumer-group
// (consumer/consumer_group_records.h) codecs. Pure; any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hw::broker::group {

using byte_view = std::span<const uint8_t>;

struct coordinator_record {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: tombstone
  bool operator==(const coordinator_record&) const = default;
};

}  // namespace hw::broker::group
