#pragma once
// Helpers shared by the consumer-group reconciliation tests: topic ids by
// number, partition lists in one line, and a small group (members, the
// partition epochs, one target per member) that applies one heartbeat as
// the coordinator will: epoch check, reconciliation, bookkeeping.

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <ostream>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "broker/group/consumer/consumer_member.h"
#include "broker/group/consumer/member_reconciliation.h"
#include "broker/group/consumer/partition_epochs.h"

namespace hw::broker::group::consumer {

// Readable failures: gtest prints these instead of raw bytes.
inline std::ostream& operator<<(std::ostream& os, const partitions_with_epochs& partitions) {
  os << "{";
  for (const auto& [topic_id, epochs] : partitions) {
    os << " " << topic_id.to_string() << ":";
    for (const auto& [p, e] : epochs) os << " " << p << "@" << e;
  }
  return os << " }";
}
inline void PrintTo(const member_assignment& a, std::ostream* os) {
  *os << "epoch " << a.epoch << " previous " << a.previous_epoch << " " << to_string(a.state) << " assigned "
      << a.assigned << " pending " << a.pending_revocation;
}
inline void PrintTo(const partition_epoch_conflict& c, std::ostream* os) {
  *os << c.topic_id.to_string() << "-" << c.partition << " at " << c.epoch << " held at " << c.held;
}

}  // namespace hw::broker::group::consumer

namespace hw::broker::group::consumer::testing {

// Topic ids 1, 2, 3... (never zero).
inline protocol::uuid topic(int n) {
  protocol::uuid id;
  id.bytes[15] = static_cast<uint8_t>(n);
  id.bytes[0] = 0x10;
  return id;
}

inline member_epoch epoch(int32_t e) { return member_epoch(e); }

// {{topic(1), {0, 1}}, {topic(2), {3}}}
inline topic_partitions tps(std::initializer_list<std::pair<const protocol::uuid, std::set<int32_t>>> list) {
  return topic_partitions(list);
}

// The same partitions, each at assignment epoch `at`.
inline partitions_with_epochs at(member_epoch e, const topic_partitions& partitions) {
  partitions_with_epochs out;
  for (const auto& [topic_id, set] : partitions) {
    for (int32_t p : set) out[topic_id][p] = e;
  }
  return out;
}

inline partitions_with_epochs merged(partitions_with_epochs a, const partitions_with_epochs& b) {
  for (const auto& [topic_id, epochs] : b) {
    for (const auto& [p, e] : epochs) a[topic_id][p] = e;
  }
  return a;
}

inline consumer_member member_with(std::string id, std::set<std::string> topics) {
  consumer_member m;
  m.member_id = std::move(id);
  m.subscription.subscribed_topic_names = std::move(topics);
  return m;
}

inline member_assignment assignment(member_epoch e, member_epoch previous, member_state state,
                                    partitions_with_epochs assigned, partitions_with_epochs pending = {}) {
  return member_assignment{e, previous, state, std::move(assigned), std::move(pending)};
}

// Topic names "t1", "t2"... are topic(1), topic(2)...; "gone" exists not.
inline std::optional<protocol::uuid> topic_by_name(std::string_view name) {
  if (name.size() >= 2 && name[0] == 't') return topic(std::stoi(std::string(name.substr(1))));
  return std::nullopt;
}

inline partition_owner owner_from(const partition_epochs& epochs) {
  return [&epochs](const protocol::uuid& t, int32_t p) { return epochs.owner_epoch(t, p); };
}
inline partition_owner nobody() {
  return [](const protocol::uuid&, int32_t) { return std::optional<member_epoch>(); };
}

// One reconciliation of `m` as the coordinator runs it.
inline reconciliation reconcile_with(const consumer_member& m, member_epoch target_epoch, topic_partitions target,
                                     std::optional<topic_partitions> owned, partition_owner owner,
                                     bool subscription_changed = false) {
  reconciliation_input in;
  in.target_epoch = target_epoch;
  in.target = std::move(target);
  in.owned = std::move(owned);
  in.subscription_changed = subscription_changed;
  in.subscribed_topic_ids = subscribed_topic_ids(m, nullptr, topic_by_name);
  in.owner = std::move(owner);
  return reconcile(m, in);
}

// A group as the coordinator keeps it, reduced to what reconciliation
// touches: the members, who holds which partition, each member's target.
class group {
 public:
  member_epoch target_epoch{0};
  std::map<std::string, topic_partitions> targets;  // by member id
  std::map<std::string, consumer_member> members;
  partition_epochs epochs;

  consumer_member& join(const std::string& id, std::set<std::string> topics) {
    auto [it, added] = members.emplace(id, member_with(id, std::move(topics)));
    EXPECT_TRUE(added);
    EXPECT_FALSE(epochs.add_member(it->second.current).has_value());
    return it->second;
  }

  // Replaces a member's record and keeps the partition epochs in step.
  void replace(const consumer_member& next) {
    auto& m = members.at(next.member_id);
    auto conflict = epochs.update_member(m.current, next.current);
    ASSERT_FALSE(conflict.has_value()) << "partition " << conflict->partition << " of a topic held at epoch "
                                       << conflict->held << ", wanted at " << conflict->epoch;
    m = next;
  }

  void leave(const std::string& id) {
    epochs.remove_member(members.at(id).current);
    members.erase(id);
    targets.erase(id);
  }

  // One heartbeat with `owned` (nullopt: not listed): the member's next
  // record, applied. Fenced members are left unchanged.
  reconciliation heartbeat(const std::string& id, std::optional<topic_partitions> owned,
                           bool subscription_changed = false) {
    const auto& m = members.at(id);
    auto r = reconcile_with(m, target_epoch, targets[id], std::move(owned), owner_from(epochs), subscription_changed);
    if (r.error == protocol::error_code::none) {
      consumer_member next = m;
      next.current = r.next;
      replace(next);
    }
    return r;
  }
};

}  // namespace hw::broker::group::consumer::testing
