#pragma once
// The membership bookkeeping of one classic group: its members by id, the
// static members (group.instance.id → member id), the pending members
// (given an id by MEMBER_ID_REQUIRED, not yet joined), the members that
// still owe a SyncGroup, how many members are parked in JoinGroup, and
// the protocol votes behind protocol selection. Rules follow Kafka 4.3's
// ClassicGroup. Owned by its classic_group (broker/group/classic_group.h);
// runs on the owning group_shard's strand.
//
// add / remove / replace_static on a group go through classic_group's
// wrappers, which keep the leader and protocol type in step; everything
// else is called on the table directly (`group.members().find(id)`).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/shard_output.h"
#include "protocol/error_code.h"
#include "protocol/messages/join_group.h"

namespace hw::broker::group {

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

class member_table {
 public:
  // Members, ordered by member id (Kafka uses hash order; ours is stable).
  using map = std::map<std::string, group_member, std::less<>>;
  map::const_iterator begin() const { return members_.begin(); }
  map::const_iterator end() const { return members_.end(); }
  size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  bool contains(std::string_view member_id) const { return members_.contains(member_id); }
  group_member* find(std::string_view member_id);
  const group_member* find(std::string_view member_id) const;

  // Adds a member (no longer pending); `join` is its parked JoinGroup, if any.
  void add(group_member member, std::optional<parked_request> join);
  // Removes a member, pending member or pending sync of that id.
  void remove(std::string_view member_id);
  void update(group_member& member, std::vector<member_protocol> protocols, int32_t rebalance_timeout_ms,
              int32_t session_timeout_ms, std::optional<parked_request> join);
  // The static member `instance_id` gets `new_member_id`; parked requests of
  // the old id are answered FENCED_INSTANCE_ID.
  group_member& replace_static(std::string_view instance_id, std::string_view old_member_id,
                               std::string new_member_id, std::vector<completion>& out);
  std::optional<std::string> static_member_id(std::string_view instance_id) const;
  // UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID as Kafka's validateMember.
  protocol::error_code validate(std::string_view member_id, const std::optional<std::string>& instance_id) const;

  // The member's parked JoinGroup, taken off it (nullopt: none parked).
  std::optional<parked_request> take_join(group_member& member);
  int32_t awaiting_join_count() const { return awaiting_join_; }
  // Every member is parked in JoinGroup and no pending member is left.
  bool all_joined() const;

  // Pending members and when each expires.
  bool is_pending(std::string_view member_id) const { return pending_members_.contains(member_id); }
  void add_pending(std::string member_id, int64_t deadline_ms);
  const std::map<std::string, int64_t, std::less<>>& pending_members() const { return pending_members_; }

  // Pending sync: members that got their JoinGroup answer but have not synced.
  void add_pending_sync(const std::string& member_id) { pending_sync_.insert(member_id); }
  void remove_pending_sync(std::string_view member_id);
  const std::set<std::string, std::less<>>& pending_sync() const { return pending_sync_; }
  void clear_pending_sync() { pending_sync_.clear(); }

  // The largest rebalance timeout among members.
  int32_t rebalance_timeout_ms() const;
  // Whether every member supports one of `protocols`.
  bool all_support_one_of(const std::vector<member_protocol>& protocols) const;
  // The protocol every member supports that most members list first.
  std::string select_protocol() const;
  // The topics the members' consumer-protocol subscriptions to
  // `protocol_name` name: none when there are no members, nullopt when
  // there is no protocol or a subscription does not decode.
  std::optional<std::set<std::string>> subscribed_topics(const std::optional<std::string>& protocol_name) const;

 private:
  void count_protocols(const group_member& member, int delta);

  map members_;
  std::map<std::string, std::string, std::less<>> static_members_;
  std::map<std::string, int64_t, std::less<>> pending_members_;
  std::set<std::string, std::less<>> pending_sync_;
  std::map<std::string, int32_t, std::less<>> protocol_votes_;
  int32_t awaiting_join_ = 0;
};

}  // namespace hw::broker::group
