// member_reconciliation: one consumer-group member's step towards its
// target assignment (see member_reconciliation.h for the rules).
#include "broker/group/consumer/member_reconciliation.h"

#include <utility>

namespace hw::broker::group::consumer {

using protocol::error_code;

namespace {

// Whether the member still owns one of `revoking`. Without a list of owned
// partitions nothing says it let them go, so it counts as owning them.
bool still_owns_any(const std::optional<topic_partitions>& owned, const partitions_with_epochs& revoking) {
  if (!owned) return true;
  for (const auto& [topic_id, partitions] : *owned) {
    auto topic = revoking.find(topic_id);
    if (topic == revoking.end()) continue;
    for (int32_t partition : partitions) {
      if (topic->second.contains(partition)) return true;
    }
  }
  return false;
}

// Whether every partition the heartbeat lists is assigned to the member (a
// listed topic it was not given fails even with no partitions).
bool owned_within(const std::optional<topic_partitions>& owned, const partitions_with_epochs& assigned) {
  if (!owned) return false;
  for (const auto& [topic_id, partitions] : *owned) {
    auto topic = assigned.find(topic_id);
    if (topic == assigned.end()) return false;
    for (int32_t partition : partitions) {
      if (!topic->second.contains(partition)) return false;
    }
  }
  return true;
}

// The member's assignment moved to `epoch`; its old epoch becomes the
// previous one even when `epoch` is the same.
member_assignment at_epoch(const member_assignment& current, member_epoch epoch) {
  member_assignment next = current;
  next.previous_epoch = current.epoch;
  next.epoch = epoch;
  return next;
}

class step {
 public:
  step(const consumer_member& member, const reconciliation_input& in) : member_(member), in_(in) {}

  reconciliation run() const;

 private:
  // The full reconciliation towards the target; `epoch` is the epoch the
  // member keeps if it has to revoke first.
  member_assignment next_assignment(member_epoch epoch) const;
  // The quick path for a subscription change: the topics the member left
  // go to revocation, nothing else moves.
  member_assignment drop_unsubscribed(member_epoch epoch) const;
  // Whether the target partition is held by another member (one the member
  // is revoking itself is free for it).
  bool held_elsewhere(const protocol::uuid& topic_id, int32_t partition) const;

  const member_assignment& current() const { return member_.current; }
  bool subscribed(const protocol::uuid& topic_id) const { return in_.subscribed_topic_ids.contains(topic_id); }

  const consumer_member& member_;
  const reconciliation_input& in_;
};

reconciliation outcome(member_assignment next) {
  reconciliation r;
  r.next = std::move(next);
  return r;
}

reconciliation step::run() const {
  const auto& cur = current();
  switch (cur.state) {
    case member_state::stable:
      if (cur.epoch != in_.target_epoch) return outcome(next_assignment(cur.epoch));
      if (in_.subscription_changed) return outcome(drop_unsubscribed(cur.epoch));
      return outcome(cur);
    case member_state::unrevoked_partitions:
      if (still_owns_any(in_.owned, cur.pending_revocation)) {
        return outcome(in_.subscription_changed ? drop_unsubscribed(cur.epoch) : cur);
      }
      return outcome(next_assignment(cur.epoch));
    case member_state::unreleased_partitions:
      return outcome(next_assignment(cur.epoch));
    case member_state::unknown:
      // Written by a newer coordinator: start over, but only from a member
      // that shows it holds nothing.
      if (!in_.owned || !in_.owned->empty()) {
        reconciliation fenced = outcome(cur);
        fenced.error = error_code::fenced_member_epoch;
        fenced.error_message =
            "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.";
        return fenced;
      }
      return outcome(next_assignment(in_.target_epoch));
  }
  return outcome(cur);
}

bool step::held_elsewhere(const protocol::uuid& topic_id, int32_t partition) const {
  if (!in_.owner(topic_id, partition)) return false;
  return !epoch_of(current().pending_revocation, topic_id, partition).has_value();
}

member_assignment step::next_assignment(member_epoch epoch) const {
  static const std::set<int32_t> none;
  std::set<protocol::uuid> topics;
  for (const auto& [topic_id, partitions] : in_.target) topics.insert(topic_id);
  for (const auto& [topic_id, partitions] : current().assigned) topics.insert(topic_id);

  partitions_with_epochs kept, revoking;
  topic_partitions to_assign;
  bool unreleased = false;
  for (const auto& topic_id : topics) {
    auto t = in_.target.find(topic_id);
    const auto& target = (t == in_.target.end() || !subscribed(topic_id)) ? none : t->second;
    if (auto a = current().assigned.find(topic_id); a != current().assigned.end()) {
      for (const auto& [partition, assigned_at] : a->second) {
        (target.contains(partition) ? kept : revoking)[topic_id][partition] = assigned_at;
      }
    }
    for (int32_t partition : target) {
      if (epoch_of(kept, topic_id, partition)) continue;
      if (held_elsewhere(topic_id, partition)) {
        unreleased = true;
      } else {
        to_assign[topic_id].insert(partition);
      }
    }
  }

  if (!revoking.empty() && still_owns_any(in_.owned, revoking)) {
    // Revoke first: the member stays in its epoch with what it keeps.
    member_assignment next = at_epoch(current(), epoch);
    next.state = member_state::unrevoked_partitions;
    next.assigned = std::move(kept);
    next.pending_revocation = std::move(revoking);
    return next;
  }
  // Nothing left to revoke (what it gave up already is simply dropped): on
  // to the target epoch with every free partition of the target.
  member_assignment next = at_epoch(current(), in_.target_epoch);
  next.state = unreleased ? member_state::unreleased_partitions : member_state::stable;
  next.assigned = std::move(kept);
  for (const auto& [topic_id, partitions] : to_assign) {
    for (int32_t partition : partitions) next.assigned[topic_id][partition] = in_.target_epoch;
  }
  next.pending_revocation.clear();
  return next;
}

member_assignment step::drop_unsubscribed(member_epoch epoch) const {
  partitions_with_epochs assigned = current().assigned;
  partitions_with_epochs revoking = current().pending_revocation;
  bool dropped = false;
  for (const auto& [topic_id, partitions] : current().assigned) {
    if (subscribed(topic_id)) continue;
    dropped = true;
    assigned.erase(topic_id);
    for (const auto& [partition, assigned_at] : partitions) revoking[topic_id][partition] = assigned_at;
  }
  if (!dropped) return current();

  member_assignment next = at_epoch(current(), epoch);
  next.assigned = std::move(assigned);
  if (!revoking.empty() && still_owns_any(in_.owned, revoking)) {
    next.state = member_state::unrevoked_partitions;
    next.pending_revocation = std::move(revoking);
  }
  // Otherwise the client had already let the dropped topics go: the member
  // keeps its state and its (empty) revocations, holding less.
  return next;
}

std::string epoch_message(std::string_view relation, member_epoch received, member_epoch known) {
  return "The consumer group member has a " + std::string(relation) + " member epoch (" +
         std::to_string(received.value) + ") than the one known by the group coordinator (" +
         std::to_string(known.value) + "). The member must abandon all its partitions and rejoin.";
}

}  // namespace

reconciliation reconcile(const consumer_member& member, const reconciliation_input& input) {
  return step(member, input).run();
}

std::set<protocol::uuid> subscribed_topic_ids(
    const consumer_member& member, const std::set<std::string>* regex_topics,
    const std::function<std::optional<protocol::uuid>(std::string_view name)>& topic_id) {
  std::set<protocol::uuid> ids;
  auto add = [&](const std::string& name) {
    if (auto id = topic_id(name)) ids.insert(*id);
  };
  for (const auto& name : member.subscription.subscribed_topic_names) add(name);
  // An unresolved regular expression matches nothing yet.
  if (!member.subscription.subscribed_topic_regex.empty() && regex_topics != nullptr) {
    for (const auto& name : *regex_topics) add(name);
  }
  return ids;
}

epoch_check check_heartbeat_epoch(const consumer_member& member, member_epoch received,
                                  const std::optional<topic_partitions>& owned) {
  const member_epoch known = member.current.epoch;
  if (received == joining_epoch || received == known) return {};
  if (received > known) return {error_code::fenced_member_epoch, epoch_message("greater", received, known)};
  // One epoch behind is the answer that moved the member on getting lost;
  // accepted while what it owns is still within its assignment.
  if (received == member.current.previous_epoch && owned_within(owned, member.current.assigned)) return {};
  return {error_code::fenced_member_epoch, epoch_message("smaller", received, known)};
}

}  // namespace hw::broker::group::consumer
