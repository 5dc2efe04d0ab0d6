#pragma once
// __consumer_offsets records of the classic group coordinator: the key is
// int16 key version + key struct, the value int16 value version + value
// struct, and a null value is a tombstone. Encoding writes what Kafka 4.3
// writes (OffsetCommitKey v1, OffsetCommitValue v4 with the topic id in
// tag 0, or v1 when an expire timestamp is set; GroupMetadataKey v2,
// GroupMetadataValue v3); decoding accepts every version. Pure; any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/group/consumer/consumer_group_records.h"
#include "broker/group/streams/streams_group_records.h"
#include "broker/group/coordinator_record.h"
#include "protocol/messages/group_coordinator_records.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group {


// One committed offset as the coordinator keeps it.
struct committed_offset {
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp_ms = 0;
  std::optional<int64_t> expire_timestamp_ms;  // only from OffsetCommit v2-v4 retention
  protocol::uuid topic_id;                     // zero when unknown
  bool operator==(const committed_offset&) const = default;
};

coordinator_record offset_commit_record(std::string_view group, std::string_view topic,
                                        int32_t partition, const committed_offset& value);
coordinator_record offset_tombstone_record(std::string_view group, std::string_view topic,
                                           int32_t partition);
coordinator_record group_metadata_record(std::string_view group,
                                         const protocol::msg::group_metadata_value& value);
coordinator_record group_tombstone_record(std::string_view group);

struct offset_record {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  std::optional<committed_offset> value;  // nullopt: tombstone
};
struct group_record {
  std::string group;
  std::optional<protocol::msg::group_metadata_value> value;  // nullopt: tombstone
};
// A record of the share group protocol: skipped at load.
struct other_record {
  int16_t key_version = 0;
};
using decoded_record = std::variant<offset_record, group_record, consumer::consumer_group_record,
                                    streams::streams_group_record, other_record>;

// nullopt when the bytes are not a valid record of a known key version.
std::optional<decoded_record> decode_record(byte_view key, std::optional<byte_view> value);

}  // namespace hw::broker::group
