#pragma once
// A streams group's next target assignment (Kafka 4.3.1's streams
// TargetAssignmentBuilder): the members (with the heartbeat's added,
// changed or removed one), each with its last target as what it has, are
// given to the sticky task assignor when the topology is ready (else every
// member's target is empty); a target record for each member whose target
// changed, in the order of Kafka's HashMap of member specs, then the
// target's epoch record. Pure; on the group's shard strand.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker/group/streams/streams_group.h"
#include "broker/group/streams/task_assignor.h"

namespace hw::broker::group::streams {

struct streams_member_change {
  std::optional<streams_member> updated;  // added or changed
  std::optional<std::string> removed;
};

struct streams_target_result {
  std::vector<streams_group_record> records;
  std::map<std::string, tasks_tuple> target;
};

std::variant<streams_target_result, task_assignor_error> compute_streams_target(
    const streams_group& group, int32_t group_epoch, int64_t now_ms, const streams_member_change& change,
    const configured_topology& topology, int32_t num_standby_replicas);

// The target record Kafka writes for a member: each kind's subtopologies in
// id order, partitions ascending.
target_assignment_member_record target_record(const std::string& group_id, const std::string& member_id,
                                              const tasks_tuple& target);

}  // namespace hw::broker::group::streams
