#pragma once
// One member of a consumer group (KIP-848) as the group coordinator keeps
// it, in two parts shaped like the two `__consumer_offsets` records that
// persist it: what the member asked for (ConsumerGroupMemberMetadataValue)
// and where its reconciliation stands (ConsumerGroupCurrentMemberAssignment
// Value). A value type: the coordinator computes the next member from the
// current one and replaces it once the records are written. Rules follow
// Kafka 4.3.1's ConsumerGroupMember. Pure; owned by the group that holds
// it, on its shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/consumer/member_epoch.h"
#include "broker/group/consumer/topic_partitions.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

// Where a member stands in its reconciliation; the value is the byte the
// current-assignment record stores.
enum class member_state : int8_t {
  stable = 0,                 // holds what its epoch's target gives it
  unrevoked_partitions = 1,   // must give partitions up before it moves on
  unreleased_partitions = 2,  // at the target epoch, waiting for partitions others still hold
  unknown = 127,              // a value only a newer coordinator knows
};
// Any byte this coordinator does not know reads as `unknown`.
member_state member_state_from_value(int8_t value);
// Kafka's names (STABLE, UNREVOKED_PARTITIONS, ...), as DescribeGroups shows them.
std::string_view to_string(member_state state);

// Partitions by topic id, each with the member epoch at which the member
// was given it. Kafka 4.3 keeps these assignment epochs so that an offset
// commit sent with an epoch older than the partition's is refused.
using partitions_with_epochs = std::map<protocol::uuid, std::map<int32_t, member_epoch>>;

topic_partitions partitions_of(const partitions_with_epochs& partitions);
std::optional<member_epoch> epoch_of(const partitions_with_epochs& partitions, const protocol::uuid& topic_id,
                                     int32_t partition);

// A member that speaks the classic protocol (JoinGroup, SyncGroup,
// Heartbeat) inside a consumer group: its session timeout and the
// protocols of its JoinGroup (name and embedded ConsumerProtocol
// subscription), in the client's order (ClassicMemberMetadata).
struct classic_protocol {
  std::string name;
  std::vector<uint8_t> metadata;
  bool operator==(const classic_protocol&) const = default;
};
struct classic_member_metadata {
  int32_t session_timeout_ms = 0;
  std::vector<classic_protocol> protocols;
  bool operator==(const classic_member_metadata&) const = default;
};

// ConsumerGroupMemberMetadataValue: the member's identity and subscription,
// as its heartbeats (or a classic member's JoinGroup) set them.
struct member_subscription {
  std::optional<std::string> instance_id;  // group.instance.id: a static member
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::set<std::string> subscribed_topic_names;
  std::string subscribed_topic_regex;  // empty: none (the record may also hold null)
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
  // Set for a member of the classic protocol, unset for one of the
  // consumer protocol.
  std::optional<classic_member_metadata> classic;

  bool operator==(const member_subscription&) const = default;
};

// ConsumerGroupCurrentMemberAssignmentValue: the member's epoch and what it
// holds. A partition in either map is the member's until it says it let go.
struct member_assignment {
  member_epoch epoch = joining_epoch;
  member_epoch previous_epoch = no_previous_epoch;
  member_state state = member_state::stable;
  partitions_with_epochs assigned;
  partitions_with_epochs pending_revocation;  // not in its target any more, not yet acknowledged

  bool operator==(const member_assignment&) const = default;
};

struct consumer_member {
  std::string member_id;
  member_subscription subscription;
  member_assignment current;  // a new member: epoch 0, previous -1, stable, nothing held

  bool is_static() const { return subscription.instance_id.has_value(); }
  bool uses_classic_protocol() const { return subscription.classic.has_value(); }
  // Stable at the target assignment's epoch: nothing left to reconcile.
  bool is_reconciled_to(member_epoch target_epoch) const {
    return current.state == member_state::stable && current.epoch == target_epoch;
  }

  bool operator==(const consumer_member&) const = default;
};

// --- ConsumerGroupHeartbeat --------------------------------------------

// The member with a heartbeat's fields applied: a field the request leaves
// null (or -1 for the rebalance timeout) keeps its value; the client id and
// host are always the request's. The member speaks the consumer protocol
// from now on (a static member replacing a classic one drops its classic
// metadata).
consumer_member with_heartbeat(const consumer_member& member, const protocol::msg::consumer_group_heartbeat_request& request,
                               std::string client_id, std::string client_host);

// The partitions the heartbeat says the member owns; nullopt when it did
// not say (a client leaves them out when they have not changed).
std::optional<topic_partitions> owned_partitions(const protocol::msg::consumer_group_heartbeat_request& request);

// Whether the answer carries the member's assignment: when it (re)joins
// with epoch 0, on a full request (rebalance timeout, a subscription and
// owned partitions all set, what a client sends after an error), and when
// its assigned partitions or their epochs changed.
bool answer_carries_assignment(const protocol::msg::consumer_group_heartbeat_request& request,
                               const consumer_member& before, const consumer_member& after);

// The answer's Assignment: the assigned partitions. Those pending
// revocation are left out, which is how the client learns to revoke them.
protocol::msg::consumer_group_heartbeat_response::assignment_data heartbeat_assignment(const consumer_member& member);

// --- Static members ----------------------------------------------------

// A static member that left with epoch -2: it keeps its assigned partitions,
// each now at assignment epoch 0 so that whoever comes back under the
// instance id holds them from epoch 0 and commits from the old member id are
// refused; nothing stays pending revocation; its previous epoch is kept.
consumer_member static_member_left(const consumer_member& member);

// The member that takes a static member's place when a client rejoins with
// its instance id: everything kept under the new member id, at epoch 0 with
// previous epoch 0.
consumer_member static_member_replacement(const consumer_member& member, std::string new_member_id);

}  // namespace hw::broker::group::consumer
