// heartbeat_request: a StreamsGroupHeartbeat's checks before its group is
// looked at (see heartbeat_request.h).
#include "broker/group/streams/heartbeat_request.h"

#include "protocol/java_string.h"

namespace hw::broker::group::streams {

using protocol::error_code;

namespace {

constexpr int32_t joining = 0, leave_static = -2;

bool blank(const std::optional<std::string>& value) { return value && protocol::java_trim(*value).empty(); }

streams_refusal invalid(std::string message) { return {error_code::invalid_request, std::move(message)}; }

template <class List>
bool empty_or_null(const std::optional<List>& list) {
  return !list || list->empty();
}

}  // namespace

std::optional<streams_refusal> check_streams_heartbeat(const protocol::msg::streams_group_heartbeat_request& r) {
  // What Kafka 4.3 does not support yet, refused first.
  if (r.instance_id) return invalid("Static membership is not yet supported.");
  if (r.task_offsets) return invalid("TaskOffsets are not supported yet.");
  if (r.task_end_offsets) return invalid("TaskEndOffsets are not supported yet.");
  if (!empty_or_null(r.warmup_tasks)) return invalid("WarmupTasks are not supported yet.");
  if (r.topology)
    for (const auto& s : r.topology->subtopologies)
      if (!s.source_topic_regex.empty()) return invalid("Regular expressions for source topics are not supported yet.");

  if (protocol::java_trim(r.member_id).empty()) return invalid("MemberId can't be empty.");
  if (protocol::java_trim(r.group_id).empty()) return invalid("GroupId can't be empty.");
  if (blank(r.instance_id)) return invalid("InstanceId can't be empty.");
  if (blank(r.rack_id)) return invalid("RackId can't be empty.");
  if (r.member_epoch == joining) {
    if (r.rebalance_timeout_ms == -1) return invalid("RebalanceTimeoutMs must be provided in first request.");
    if (!r.active_tasks || !r.active_tasks->empty()) return invalid("ActiveTasks must be empty when (re-)joining.");
    if (!r.standby_tasks || !r.standby_tasks->empty()) return invalid("StandbyTasks must be empty when (re-)joining.");
    if (!r.warmup_tasks || !r.warmup_tasks->empty()) return invalid("WarmupTasks must be empty when (re-)joining.");
    if (!r.topology) return invalid("Topology must be non-null when (re-)joining.");
    for (const auto& s : r.topology->subtopologies) {
      for (const auto& c : s.state_changelog_topics) {
        if (c.partitions != 0) {
          return streams_refusal{error_code::streams_invalid_topology,
                                 "Changelog topic " + c.name + " must have an undefined partition count, but it is set to " +
                                     std::to_string(c.partitions) + "."};
        }
      }
    }
  } else if (r.member_epoch == leave_static) {
    if (!r.instance_id) return invalid("InstanceId can't be null.");
  } else if (r.member_epoch < leave_static) {
    return invalid("MemberEpoch is " + std::to_string(r.member_epoch) + ", but must be greater than or equal to -2.");
  }
  if (r.active_tasks || r.standby_tasks || r.warmup_tasks) {
    if (!r.active_tasks || !r.standby_tasks || !r.warmup_tasks)
      return invalid("If one task-type is non-null, all must be non-null.");
  }
  if (r.member_epoch != joining && r.topology) return invalid("Topology can only be provided when (re-)joining.");
  return std::nullopt;
}

topology topology_from(const protocol::msg::streams_group_heartbeat_request::topology_data& t) {
  return topology_from_message(t);
}

}  // namespace hw::broker::group::streams
