#pragma once
// A streams group as StreamsGroupDescribe shows it (Kafka 4.3.1's
// StreamsGroup.asDescribedGroup): epochs and state; the topology as
// configured when it is ready (internal topics with their decided partition
// counts), else as declared; each member's identity, process, endpoint and
// tags, the tasks it holds and its target. Topics, subtopologies and tasks
// sorted. Pure; on the group's shard strand.

#include "broker/group/streams/streams_group.h"
#include "protocol/messages/streams_group_describe.h"

namespace hw::broker::group::streams {

protocol::msg::streams_group_describe_response::described_group describe(const streams_group& group);

}  // namespace hw::broker::group::streams
