#pragma once
// One streams group (KIP-1071) as its coordinator keeps it: the group epoch,
// metadata hash, the topology epoch validated against the topics and the
// assignment configs last used, the topology, the members, the target
// assignment and its epoch, and which process holds each task now. It
// changes only by replaying its `__consumer_offsets` records (at load and
// after its own writes, one code), as Kafka 4.3.1's StreamsGroup and its
// replay. The configured topology (topology.h) is derived, set by the
// heartbeat. Pure; owned by its shard, on the shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "broker/group/streams/streams_group_records.h"
#include "broker/group/streams/streams_member.h"
#include "broker/group/streams/topology.h"

namespace hw::broker::group::streams {

// StreamsGroupDescribe's and ListGroups' names: Empty, NotReady, Assigning,
// Reconciling, Stable, Dead.
enum class streams_group_state { empty, not_ready, assigning, reconciling, stable, dead };
std::string_view to_string(streams_group_state state);

class streams_group {
 public:
  explicit streams_group(std::string group_id) : group_id_(std::move(group_id)) {}

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  int64_t metadata_hash() const { return metadata_hash_; }
  int32_t validated_topology_epoch() const { return validated_topology_epoch_; }
  const std::map<std::string, std::string>& last_assignment_configs() const { return last_assignment_configs_; }
  const std::optional<topology>& declared_topology() const { return topology_; }
  const std::map<std::string, streams_member>& members() const { return members_; }
  const streams_member* member(const std::string& member_id) const;
  const std::map<std::string, tasks_tuple>& target_assignment() const { return target_; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  int64_t assignment_timestamp_ms() const { return assignment_timestamp_ms_; }
  bool deleted() const { return deleted_; }

  // The topology as configured against the image (set by the heartbeat;
  // unset at load until then).
  const std::optional<configured_topology>& configured() const { return configured_; }
  void set_configured(std::optional<configured_topology> c) { configured_ = std::move(c); }

  // Empty without members; NotReady while the topology is not configured
  // and ready; Assigning while the target lags the group epoch;
  // Reconciling while a member is not stable at the target's epoch.
  streams_group_state state() const;

  // Who holds a task now: the process running it as an active task, and
  // those keeping it as a standby or warm-up task.
  std::optional<std::string> active_process(const std::string& subtopology, int32_t partition) const;
  std::set<std::string> standby_processes(const std::string& subtopology, int32_t partition) const;
  std::set<std::string> warmup_processes(const std::string& subtopology, int32_t partition) const;

  // Applies one of this group's records; an error names an invariant the
  // records break (Kafka's IllegalStateException during replay), the group
  // then as it was.
  std::optional<std::string> replay(const streams_group_record& record);

 private:
  // replay's step for each record type.
  std::optional<std::string> apply(const group_metadata_record& r);
  std::optional<std::string> apply(const member_metadata_record& r);
  std::optional<std::string> apply(const target_assignment_epoch_record& r);
  std::optional<std::string> apply(const target_assignment_member_record& r);
  std::optional<std::string> apply(const current_assignment_record& r);
  std::optional<std::string> apply(const topology_record& r);
  // A copy of the member with this id, or a new one with just the id.
  streams_member member_or_new(const std::string& id) const;
  void update_member(const std::string& member_id, streams_member next);
  void hold(const streams_member& m, int delta);

  std::string group_id_;
  int32_t group_epoch_ = 1;  // Kafka 4.3: a new group is at epoch 1, its target too
  int64_t metadata_hash_ = 0;
  int32_t validated_topology_epoch_ = 0;
  std::map<std::string, std::string> last_assignment_configs_;
  std::optional<topology> topology_;
  std::optional<configured_topology> configured_;
  std::map<std::string, streams_member> members_;
  std::map<std::string, tasks_tuple> target_;
  int32_t assignment_epoch_ = 1;  // Kafka 4.3's initial target metadata (1, 0)
  int64_t assignment_timestamp_ms_ = 0;
  // (subtopology, partition) → process, or the processes with counts.
  std::map<std::pair<std::string, int32_t>, std::string> active_;
  std::map<std::pair<std::string, int32_t>, std::map<std::string, int>> standby_, warmup_;
  bool deleted_ = false;
};

// Members and tasks to and from their record values.
streams_member_metadata metadata_from(const msg::streams_group_member_metadata_value& value, std::string& process_id);
msg::streams_group_member_metadata_value to_value(const streams_member_metadata& metadata, const std::string& process_id);
// Active tasks without epochs in the record (written before 4.3) are held
// at the record's member epoch, as Kafka reads them.
void assignment_from(const msg::streams_group_current_member_assignment_value& value, streams_member& member);
tasks_tuple target_from(const msg::streams_group_target_assignment_member_value& value);

}  // namespace hw::broker::group::streams
