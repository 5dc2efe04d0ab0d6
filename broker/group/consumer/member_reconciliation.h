#pragma once
// Reconciliation of one consumer-group member towards its target
// assignment (KIP-848), one heartbeat at a time: the step Kafka 4.3.1 takes
// in CurrentAssignmentBuilder, as a pure function of the member and what
// the heartbeat and the group say. Pure; any thread (the group coordinator
// calls it on its shard's strand).
//
// The rules, for the member's next state:
// - A partition the member holds but its target no longer gives it (or
//   that belongs to a topic it is no longer subscribed to, or that no longer
//   exists) is to be revoked. While the member still owns one, it stays in
//   its epoch, in UNREVOKED_PARTITIONS, holding only what it keeps; it is
//   told to let the rest go. A heartbeat that does not list its owned
//   partitions counts as still owning them.
// - Once nothing is left to revoke, it moves to the target epoch and is
//   given the target's partitions that no other member holds (a partition
//   it was itself revoking counts as free for it). If some are still held
//   elsewhere it waits for them in UNRELEASED_PARTITIONS, at the new epoch;
//   otherwise it is STABLE.
// - A member in UNREVOKED_PARTITIONS does not move until its owned
//   partitions no longer contain the revoked ones, even if the target
//   changes meanwhile; only a subscription change can make it give up more.
// - A STABLE member at the target epoch whose subscription changed gives up
//   the topics it left, without a full reconciliation.
// - A member in a state this coordinator does not know is fenced unless it
//   says it owns nothing; then it is reconciled from scratch.
//
// Checking the heartbeat's epoch against the member's (FENCED_MEMBER_EPOCH
// when it is ahead, or behind other than by one lost answer) comes before,
// in `check_heartbeat_epoch`.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "broker/group/consumer/consumer_member.h"
#include "broker/group/consumer/member_epoch.h"
#include "broker/group/consumer/topic_partitions.h"
#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

// The epoch of the member that holds a partition now, nullopt when free
// (`partition_epochs::owner_epoch`).
using partition_owner = std::function<std::optional<member_epoch>(const protocol::uuid& topic_id, int32_t partition)>;

struct reconciliation_input {
  // The group's target assignment: its epoch and this member's partitions.
  member_epoch target_epoch;
  topic_partitions target;
  // The partitions the heartbeat says the member owns; nullopt when the
  // heartbeat did not carry them.
  std::optional<topic_partitions> owned;
  // The member's subscription changed in this heartbeat (topic names, or a
  // regular expression): the topics it left are revoked at once.
  bool subscription_changed = false;
  // The ids of the existing topics the member subscribes to, by name or
  // through its resolved regular expression (`subscribed_topic_ids`). A
  // target partition of any other topic is treated as not in the target.
  std::set<protocol::uuid> subscribed_topic_ids;
  partition_owner owner;
};

struct reconciliation {
  // none, or fenced_member_epoch: the member's state is unknown here and it
  // did not say it owns nothing; it must give everything up and rejoin.
  protocol::error_code error = protocol::error_code::none;
  std::string error_message;
  // The member's next epoch, previous epoch, state and holdings; equal to
  // the current ones when it cannot move (then no record is written).
  member_assignment next;
};

// One reconciliation step for `member`.
reconciliation reconcile(const consumer_member& member, const reconciliation_input& input);

// The ids of the topics `member` subscribes to that exist: its topic names
// and, when its regular expression is resolved (`regex_topics` set), the
// topics that resolved to. `topic_id` looks a name up in the metadata.
std::set<protocol::uuid> subscribed_topic_ids(
    const consumer_member& member, const std::set<std::string>* regex_topics,
    const std::function<std::optional<protocol::uuid>(std::string_view name)>& topic_id);

struct epoch_check {
  protocol::error_code error = protocol::error_code::none;  // or fenced_member_epoch
  std::string message;
};

// Whether a heartbeat's member epoch is acceptable for `member` (Kafka's
// consumer-group epoch validation, done before reconciliation): epoch 0
// always (a (re)join); the member's own epoch; its previous epoch when the
// heartbeat lists owned partitions that it is still assigned (the answer
// that moved it on was lost). Anything else is FENCED_MEMBER_EPOCH.
epoch_check check_heartbeat_epoch(const consumer_member& member, member_epoch received,
                                  const std::optional<topic_partitions>& owned);

}  // namespace hw::broker::group::consumer
