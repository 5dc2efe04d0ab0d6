#pragma once
// One classic consumer group: its state machine, generation, protocol type
// and name, leader, timers and the requests parked on it (JoinGroup
// barrier, SyncGroup waiting for the leader). Its membership bookkeeping
// (members, static and pending members, pending sync, protocol votes) is
// its member_table (member_table.h). Rules follow Kafka 4.3's
// ClassicGroup. Owned by a group_shard; runs on that shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/member_table.h"
#include "broker/group/shard_output.h"
#include "protocol/error_code.h"
#include "protocol/messages/group_coordinator_records.h"
#include "protocol/messages/join_group.h"

namespace hw::broker::group {

enum class group_state { empty, preparing_rebalance, completing_rebalance, stable, dead };

// Kafka's display name ("PreparingRebalance"), as DescribeGroups/ListGroups show it.
std::string_view state_name(group_state state);

inline protocol::msg::sync_group_response sync_error(protocol::error_code e) {
  protocol::msg::sync_group_response r;
  r.error_code = static_cast<int16_t>(e);
  return r;
}

// Timer of the join phase: either the initial-rebalance delay of a new
// group (extended while members keep arriving) or the rebalance timeout.
struct join_timer {
  int64_t deadline_ms = 0;
  bool initial = false;
  int32_t delay_ms = 0;
  int32_t remaining_ms = 0;
};

struct sync_timer {
  int64_t deadline_ms = 0;
  int32_t generation = 0;
};

class classic_group {
 public:
  classic_group(std::string group_id, int64_t now_ms);

  const std::string& group_id() const { return group_id_; }
  group_state state() const { return state_; }
  group_state previous_state() const { return previous_state_; }
  bool in(group_state s) const { return state_ == s; }
  int32_t generation() const { return generation_; }
  const std::optional<std::string>& protocol_type() const { return protocol_type_; }
  const std::optional<std::string>& protocol_name() const { return protocol_name_; }
  const std::optional<std::string>& leader_id() const { return leader_id_; }
  std::optional<int64_t> state_timestamp_ms() const { return state_timestamp_ms_; }
  bool is_leader(std::string_view member_id) const { return leader_id_ && *leader_id_ == member_id; }

  // Restores what a GroupMetadataValue record holds (load).
  void restore(int32_t generation, std::optional<std::string> protocol_type,
               std::optional<std::string> protocol_name, std::optional<std::string> leader_id,
               std::optional<int64_t> state_timestamp_ms, group_state state);

  // The membership; add, remove and replace_static_member below keep the
  // leader and protocol type in step with it.
  member_table& members() { return members_; }
  const member_table& members() const { return members_; }

  // Adds a member; `join` is its parked JoinGroup, if any.
  void add(group_member member, std::optional<parked_request> join);
  // Removes a member (or a pending one); elects the next leader if needed.
  void remove(std::string_view member_id);
  // member_table::replace_static, the leadership moving with the member.
  group_member& replace_static_member(std::string_view instance_id, std::string_view old_member_id,
                                      std::string new_member_id, std::vector<completion>& out);

  // Whether a member speaking `protocol_type` with `protocols` may join: any
  // while Empty, else the group's type and a protocol every member supports.
  bool supports_protocols(std::string_view protocol_type,
                          const std::vector<member_protocol>& protocols) const;
  // If the leader did not rejoin, one that did becomes leader; false when
  // no member rejoined.
  bool maybe_elect_joined_leader();
  bool can_rebalance() const;
  void transition_to(group_state next, int64_t now_ms);
  // Next generation: CompletingRebalance with a selected protocol, or
  // Empty when no member is left.
  void init_next_generation(int64_t now_ms);

  // Answers a parked JoinGroup / SyncGroup (no-op when none is parked).
  bool complete_join(group_member& member, protocol::msg::join_group_response response,
                     std::vector<completion>& out);
  bool complete_sync(group_member& member, protocol::msg::sync_group_response response,
                     std::vector<completion>& out);
  std::vector<protocol::msg::join_group_response::join_group_response_member> join_members() const;

  // Topics the members subscribed to as of the current generation (or the
  // loaded record), when the group speaks the consumer protocol; nullopt:
  // unknown, so every topic counts as subscribed. Kafka caches this per
  // generation, so a rebalance in progress does not change it.
  const std::optional<std::set<std::string>>& subscribed_topics() const { return subscribed_topics_; }
  void refresh_subscribed_topics();
  bool is_subscribed_to(std::string_view topic) const;
  bool uses_consumer_protocol() const { return protocol_type_ && *protocol_type_ == "consumer"; }

  // What a GroupMetadataValue record holds for this group; assignments
  // from `assignment` when given (missing members: empty), else the members' own.
  using assignment_map = std::map<std::string, std::vector<uint8_t>, std::less<>>;
  protocol::msg::group_metadata_value record_value(const assignment_map* assignment) const;

  std::optional<join_timer> join_timer_;
  std::optional<sync_timer> sync_timer_;
  bool new_member_added = false;

 private:
  std::string group_id_;
  group_state state_ = group_state::empty;
  group_state previous_state_ = group_state::empty;
  std::optional<int64_t> state_timestamp_ms_;
  int32_t generation_ = 0;
  std::optional<std::string> protocol_type_;
  std::optional<std::string> protocol_name_;
  std::optional<std::string> leader_id_;
  member_table members_;
  std::optional<std::set<std::string>> subscribed_topics_;
};

}  // namespace hw::broker::group
