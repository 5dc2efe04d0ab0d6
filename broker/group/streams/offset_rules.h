#pragma once
// What a streams group (KIP-1071) lets through of the offset requests
// (Kafka 4.3.1's StreamsGroup.validateOffsetCommit / validateOffsetFetch /
// isSubscribedToTopic): a commit from outside the group (epoch -1) only
// while the group has no members, a transactional one naming nobody always,
// else from a member at its current epoch (OffsetCommit v9+), or at an
// older epoch for the partitions of the active tasks it was given at or
// before that epoch; fetches from a member at its epoch. Pure; on the
// shard's strand.

#include <cstdint>
#include <optional>
#include <string>

#include "broker/group/consumer/offset_rules.h"
#include "broker/group/streams/streams_group.h"

namespace hw::broker::group::streams {

consumer::commit_check check_offset_commit(const streams_group& group, const std::string& member_id,
                                           const std::optional<std::string>& instance_id, int32_t member_epoch,
                                           bool transactional, int16_t api_version);

std::optional<consumer::offset_refusal> check_offset_fetch(const streams_group& group,
                                                           const std::optional<std::string>& member_id,
                                                           int32_t member_epoch);

// Whether the topic is a source of the topology of a group with members
// (its offsets then stay, and OffsetDelete refuses them).
bool subscribes_to(const streams_group& group, const std::string& topic);

}  // namespace hw::broker::group::streams
