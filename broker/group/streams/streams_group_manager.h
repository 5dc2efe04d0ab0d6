#pragma once
// The streams groups of one `__consumer_offsets` shard and the
// StreamsGroupHeartbeat that drives them (Kafka 4.3.1's GroupMetadataManager
// for the streams protocol): a member joins with its topology, heartbeats,
// is reconciled towards its target task by task, leaves or is fenced when
// its session ends. Each call returns the records that persist what it
// decided, already replayed into the group, and the answer (with the
// internal topics the broker should create). Pure: the caller supplies the
// clock and the topic image; on the shard's strand.
//
// Built so far: joins, heartbeats and leaves of dynamic members; the
// topology initialised by the first member and STALE_TOPOLOGY for members
// behind it; the topology configured against the image (its metadata hash
// checked at each heartbeat), the validated topology epoch and the
// assignment configs in the group record; the target assignment (at most
// every assignment interval) and each member's reconciliation; statuses
// MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS,
// MISSING_INTERNAL_TOPICS, STALE_TOPOLOGY, ASSIGNMENT_DELAYED; session
// expiry; the initial rebalance delay (a group that had no members waits
// before its first target, computed by `delayed_targets` when it ends);
// group-level configs; a member's request to shut the application down
// (SHUTDOWN_APPLICATION to every member until the group empties); the
// endpoint information for interactive queries (partitions by user
// endpoint, sent when a member's epoch of it is behind); a member that does
// not revoke its tasks within its rebalance timeout fenced. Static members
// are refused, as Kafka 4.3 refuses them.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/target_assignment.h"
#include "broker/group/streams/heartbeat_request.h"
#include "broker/group/streams/streams_group.h"
#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::broker::group::streams {

// Kafka 4.3's group.streams.* keys and defaults.
struct streams_group_options {
  int32_t session_timeout_ms = 45000;
  int32_t heartbeat_interval_ms = 5000;
  int32_t max_size = std::numeric_limits<int32_t>::max();
  int32_t num_standby_replicas = 0;
  int32_t assignment_interval_ms = 1000;
  // A new group's first target waits this long for more members.
  int32_t initial_rebalance_delay_ms = 3000;
};

struct streams_heartbeat_outcome {
  std::vector<streams_group_record> records;  // already replayed into the group
  protocol::msg::streams_group_heartbeat_response response;
  // With records: the group as it was before them (nullopt: none).
  std::optional<streams_group> before;
  // Internal topics the topology needs that do not exist yet.
  std::vector<internal_topic> to_create;
};

class streams_draft;

// The tombstones deleting a group, in Kafka's order: current assignments,
// targets, the target's epoch, members, the group, the topology.
std::vector<streams_group_record> deletion_records(const streams_group& group);

class streams_group_manager {
 public:
  explicit streams_group_manager(streams_group_options options) : options_(options) {}

  // Where group-level configs are read (streams.session.timeout.ms,
  // streams.heartbeat.interval.ms, streams.num.standby.replicas,
  // streams.initial.rebalance.delay.ms, streams.assignment.interval.ms over
  // the options); null: the options alone. Must outlive its use.
  void set_config_source(const consumer::topic_image_view* source) { configs_ = source; }
  // The options as they stand for one group.
  streams_group_options options_for(const std::string& group_id) const;

  streams_heartbeat_outcome heartbeat(const protocol::msg::streams_group_heartbeat_request& request,
                                      const std::string& client_id, const std::string& client_host,
                                      const consumer::topic_image_view& topics, int64_t now_ms);

  // Fences every member whose session ended by now, or that did not revoke
  // its tasks within its rebalance timeout: the records removing them.
  std::vector<streams_group_record> expire_sessions(int64_t now_ms);
  // The same for one group's members.
  std::vector<streams_group_record> expire_sessions_of(const std::string& group_id, int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const;
  // The targets of groups whose initial rebalance delay ended by now
  // (records already replayed, `before` the group as it was).
  struct delayed_target {
    std::string group_id;
    streams_group before;
    std::vector<streams_group_record> records;
  };
  std::vector<delayed_target> delayed_targets(int64_t now_ms);

  std::optional<std::string> replay(const streams_group_record& record);
  void activate(int64_t now_ms);
  void clear();

  // The group as it is now (nullopt: none), and the group put back as a
  // snapshot had it (a write that failed), its members' sessions from now.
  std::optional<streams_group> snapshot(const std::string& group_id) const;
  void restore(const std::string& group_id, std::optional<streams_group> was, int64_t now_ms);
  // The group's deletion_records, already replayed: the group is gone.
  // Empty when there is no such group.
  std::vector<streams_group_record> delete_group(const std::string& group_id);
  // The groups with a member whose session or rebalance timeout ended by now.
  std::vector<std::string> groups_with_ended_sessions(int64_t now_ms) const;

  const streams_group* group(const std::string& group_id) const;
  const std::map<std::string, streams_group>& groups() const { return groups_; }
  // Group epoch bumps by heartbeats since the manager was made (Kafka's
  // streams-group-rebalance-count).
  uint64_t rebalances() const { return rebalances_; }

 private:
  streams_heartbeat_outcome refuse(protocol::error_code code, std::string message) const;
  // Epoch -1: the member fenced, the group epoch bumped.
  streams_heartbeat_outcome leave(const protocol::msg::streams_group_heartbeat_request& request);
  // The heartbeat's steps after the topology: the group's next target
  // (unless it waits), the member's session and rebalance timeout, the
  // answer's tasks, endpoint information and statuses.
  std::optional<streams_refusal> next_target(streams_draft& d, const streams_member& updated,
                                             const configured_topology& config, const streams_group_options& options,
                                             bool was_empty, int64_t now_ms,
                                             protocol::msg::streams_group_heartbeat_response& response);
  void track(const std::string& group_id, const streams_member& before, const streams_member& after,
             const streams_group_options& options, int64_t now_ms);
  void answer(protocol::msg::streams_group_heartbeat_response& response,
              const protocol::msg::streams_group_heartbeat_request& request, const streams_member& member,
              const streams_member& current, bool created, const configured_topology& config,
              const consumer::topic_image_view& topics);
  // The records fencing `member_id` (its tombstones, then the group epoch bumped).
  std::vector<streams_group_record> fence(streams_group& group, const std::string& member_id);

  streams_group_options options_;
  const consumer::topic_image_view* configs_ = nullptr;
  std::map<std::string, streams_group> groups_;
  std::map<std::pair<std::string, std::string>, int64_t> sessions_;  // (group, member) → when it ends
  std::map<std::string, int64_t> initial_delays_;  // group → when its first target is due
  // Members asked to revoke tasks: by when, at which epoch (Kafka's rebalance timeout).
  struct revocation {
    int64_t deadline_ms = 0;
    int32_t epoch = 0;
  };
  std::map<std::pair<std::string, std::string>, revocation> revocations_;
  // Not persisted, as Kafka keeps them: who asked the application to shut
  // down (until the group empties), and the endpoint information's epoch.
  std::map<std::string, std::string> shutdown_requests_;
  std::map<std::string, int32_t> endpoint_epochs_;
  uint64_t rebalances_ = 0;
};

}  // namespace hw::broker::group::streams
