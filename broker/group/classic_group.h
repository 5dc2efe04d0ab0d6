#pragma once
// One classic consumer group: its members, static members, pending
// (member-id-required) members, protocol votes, generation and state, and
// the requests parked on it (JoinGroup barrier, SyncGroup waiting for the
// leader). Rules follow Kafka 4.3's ClassicGroup. Owned by a group_shard;
// runs on that shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

struct member_protocol {
  std::string name;
  std::vector<uint8_t> metadata;
  bool operator==(const member_protocol&) const = default;
};

// A request parked on the group, answered later.
struct parked_request {
  request_token token = 0;
  int16_t version = 0;
};

struct group_member {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  std::vector<member_protocol> protocols;
  std::vector<uint8_t> assignment;
  std::optional<parked_request> awaiting_join;
  std::optional<parked_request> awaiting_sync;
  // Joined in the current rebalance and not yet through a completed join.
  bool is_new = false;
  // When the session (or the new member's join) expires; unset while the
  // member waits on a parked request, as Kafka lets that expiration pass.
  std::optional<int64_t> heartbeat_deadline_ms;

  // A member parked in JoinGroup or SyncGroup is alive; a new one is not
  // until its join completes.
  bool has_satisfied_heartbeat() const {
    return !is_new && (awaiting_join.has_value() || awaiting_sync.has_value());
  }
  const std::vector<uint8_t>* metadata(std::string_view protocol) const;
  bool matches(const std::vector<member_protocol>& other) const { return protocols == other; }
};

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

  // Members, ordered by member id (Kafka uses hash order; ours is stable).
  const std::map<std::string, group_member, std::less<>>& members() const { return members_; }
  group_member* member(std::string_view member_id);
  const group_member* member(std::string_view member_id) const;
  bool has_member(std::string_view member_id) const { return members_.contains(member_id); }
  size_t size() const { return members_.size(); }
  bool empty_of_members() const { return members_.empty(); }

  // Adds a member; `join` is its parked JoinGroup, if any.
  void add(group_member member, std::optional<parked_request> join);
  // Removes a member (or a pending one); elects the next leader if needed.
  void remove(std::string_view member_id);
  void update_member(group_member& member, std::vector<member_protocol> protocols,
                     int32_t rebalance_timeout_ms, int32_t session_timeout_ms,
                     std::optional<parked_request> join);
  // The static member `instance_id` gets `new_member_id`; parked requests of
  // the old id are answered FENCED_INSTANCE_ID.
  group_member& replace_static_member(std::string_view instance_id, std::string_view old_member_id,
                                      std::string new_member_id, std::vector<completion>& out);

  // Pending members: given an id by MEMBER_ID_REQUIRED, not yet joined.
  bool is_pending(std::string_view member_id) const { return pending_members_.contains(member_id); }
  void add_pending(std::string member_id, int64_t deadline_ms);
  const std::map<std::string, int64_t, std::less<>>& pending_members() const { return pending_members_; }

  std::optional<std::string> static_member_id(std::string_view instance_id) const;

  // Pending sync: members that got their JoinGroup answer but have not synced.
  void add_pending_sync(const std::string& member_id) { pending_sync_.insert(member_id); }
  void remove_pending_sync(std::string_view member_id);
  bool all_synced() const { return pending_sync_.empty(); }
  const std::set<std::string, std::less<>>& pending_sync() const { return pending_sync_; }
  void clear_pending_sync() { pending_sync_.clear(); }

  int32_t awaiting_join_count() const { return awaiting_join_; }
  bool all_members_joined() const {
    return static_cast<int32_t>(members_.size()) == awaiting_join_ && pending_members_.empty();
  }
  // The largest rebalance timeout among members.
  int32_t rebalance_timeout_ms() const;

  // UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID as Kafka's validateMember.
  protocol::error_code validate_member(std::string_view member_id,
                                       const std::optional<std::string>& instance_id) const;
  bool supports_protocols(std::string_view protocol_type,
                          const std::vector<member_protocol>& protocols) const;
  // The protocol every member supports that most members list first.
  std::string select_protocol() const;
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
  void refresh_subscribed_topics() { subscribed_topics_ = compute_subscribed_topics(); }
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
  void count_protocols(const group_member& member, int delta);
  std::optional<std::set<std::string>> compute_subscribed_topics() const;

  std::string group_id_;
  group_state state_ = group_state::empty;
  group_state previous_state_ = group_state::empty;
  std::optional<int64_t> state_timestamp_ms_;
  int32_t generation_ = 0;
  std::optional<std::string> protocol_type_;
  std::optional<std::string> protocol_name_;
  std::optional<std::string> leader_id_;
  std::map<std::string, group_member, std::less<>> members_;
  std::map<std::string, std::string, std::less<>> static_members_;
  std::map<std::string, int64_t, std::less<>> pending_members_;
  std::set<std::string, std::less<>> pending_sync_;
  std::map<std::string, int32_t, std::less<>> protocol_votes_;
  int32_t awaiting_join_ = 0;
  std::optional<std::set<std::string>> subscribed_topics_;
};

}  // namespace hw::broker::group
