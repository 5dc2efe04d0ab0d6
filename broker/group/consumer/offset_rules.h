#pragma once
// What a consumer group (KIP-848) lets through of the offset requests
// (Kafka 4.3's ConsumerGroup.validateOffsetCommit / validateOffsetFetch):
// a commit from outside the group (epoch -1) only while the group is
// empty, else from a member at its current epoch, or at an older epoch for
// the partitions it was given at or before that epoch (4.3's assignment
// epochs); fetches from a member at its epoch. Pure; on the shard's strand.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "broker/group/consumer/consumer_group.h"
#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

struct offset_refusal {
  protocol::error_code code = protocol::error_code::none;
  std::string message;
};

// A check of each committed partition; empty when every one passes.
using partition_check =
    std::function<std::optional<offset_refusal>(const protocol::uuid& topic_id, const std::string& topic, int32_t partition)>;

struct commit_check {
  std::optional<offset_refusal> refusal;  // the whole request refused
  partition_check per_partition;
};

// OffsetCommit (transactional: TxnOffsetCommit) as `api_version`.
commit_check check_offset_commit(const consumer_group& group, const std::string& member_id,
                                 const std::optional<std::string>& instance_id, int32_t member_epoch,
                                 bool transactional, int16_t api_version);

// OffsetFetch v9+ naming a member (nullopt with epoch -1: an admin's fetch).
std::optional<offset_refusal> check_offset_fetch(const consumer_group& group, const std::optional<std::string>& member_id,
                                                 int32_t member_epoch);

// Whether any member subscribes to `topic`, by name or through a resolved
// regular expression (OffsetDelete refuses such topics).
bool subscribes_to(const consumer_group& group, const std::string& topic);

}  // namespace hw::broker::group::consumer
