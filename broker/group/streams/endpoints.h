#pragma once
// Where interactive queries find a streams group's state (KIP-1071's
// endpoint information, Kafka 4.3.1's EndpointToPartitionsManager): for
// each member that declared a user endpoint (application.server), the
// partitions of the source and repartition source topics of the tasks it
// holds, active and standby (a topic with fewer partitions than the task
// count gets its lowest task numbers only). The heartbeat's member last,
// the others in member-id order; topics and partitions sorted (Kafka's
// order comes from hash sets and is not fixed). Pure; on the shard's strand.

#include <vector>

#include "broker/group/consumer/target_assignment.h"
#include "broker/group/streams/streams_group.h"
#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::broker::group::streams {

std::vector<protocol::msg::streams_group_heartbeat_response::endpoint_to_partitions> endpoint_partitions(
    const streams_group& group, const streams_member& updated, const consumer::topic_image_view& topics);

}  // namespace hw::broker::group::streams
