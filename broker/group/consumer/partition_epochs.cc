// partition_epochs: which member epoch holds each partition of a consumer
// group (see partition_epochs.h).
#include "broker/group/consumer/partition_epochs.h"

#include <set>

namespace hw::broker::group::consumer {

namespace {

bool holds(const member_assignment& member, const protocol::uuid& topic_id, int32_t partition) {
  return epoch_of(member.assigned, topic_id, partition).has_value() ||
         epoch_of(member.pending_revocation, topic_id, partition).has_value();
}

}  // namespace

std::optional<member_epoch> partition_epochs::owner_epoch(const protocol::uuid& topic_id, int32_t partition) const {
  auto topic = epochs_.find(topic_id);
  if (topic == epochs_.end()) return std::nullopt;
  auto it = topic->second.find(partition);
  if (it == topic->second.end()) return std::nullopt;
  return it->second;
}

std::optional<partition_epoch_conflict> partition_epochs::find_conflict(
    std::initializer_list<const partitions_with_epochs*> lists, member_epoch epoch,
    const member_assignment* freed) const {
  std::map<protocol::uuid, std::set<int32_t>> seen;
  for (const auto* list : lists) {
    for (const auto& [topic_id, partitions] : *list) {
      for (const auto& [partition, assignment_epoch] : partitions) {
        // Listed twice: the second would find the first's epoch.
        if (!seen[topic_id].insert(partition).second) return partition_epoch_conflict{topic_id, partition, epoch, epoch};
        auto held = owner_epoch(topic_id, partition);
        if (!held) continue;
        if (freed != nullptr && *held == freed->epoch && holds(*freed, topic_id, partition)) continue;
        // An older holder is overwritten, as Kafka does: only a holder at
        // this epoch or a newer one means two members would hold it.
        if (*held >= epoch) return partition_epoch_conflict{topic_id, partition, epoch, *held};
      }
    }
  }
  return std::nullopt;
}

void partition_epochs::put(const partitions_with_epochs& partitions, member_epoch epoch) {
  for (const auto& [topic_id, epochs] : partitions) {
    if (epochs.empty()) continue;
    auto& topic = epochs_[topic_id];
    for (const auto& [partition, assignment_epoch] : epochs) topic[partition] = epoch;
  }
}

std::optional<partition_epoch_conflict> partition_epochs::add(const partitions_with_epochs& partitions,
                                                              member_epoch epoch) {
  if (auto conflict = find_conflict({&partitions}, epoch, nullptr)) return conflict;
  put(partitions, epoch);
  return std::nullopt;
}

void partition_epochs::remove(const partitions_with_epochs& partitions, member_epoch epoch) {
  for (const auto& [topic_id, epochs] : partitions) {
    auto topic = epochs_.find(topic_id);
    if (topic == epochs_.end()) continue;
    for (const auto& [partition, assignment_epoch] : epochs) {
      auto it = topic->second.find(partition);
      if (it != topic->second.end() && it->second == epoch) topic->second.erase(it);
    }
    if (topic->second.empty()) epochs_.erase(topic);
  }
}

std::optional<partition_epoch_conflict> partition_epochs::add_member(const member_assignment& member) {
  if (auto conflict = find_conflict({&member.assigned, &member.pending_revocation}, member.epoch, nullptr)) {
    return conflict;
  }
  put(member.assigned, member.epoch);
  put(member.pending_revocation, member.epoch);
  return std::nullopt;
}

void partition_epochs::remove_member(const member_assignment& member) {
  remove(member.assigned, member.epoch);
  remove(member.pending_revocation, member.epoch);
}

std::optional<partition_epoch_conflict> partition_epochs::update_member(const member_assignment& before,
                                                                        const member_assignment& after) {
  if (auto conflict = find_conflict({&after.assigned, &after.pending_revocation}, after.epoch, &before)) {
    return conflict;
  }
  remove_member(before);
  put(after.assigned, after.epoch);
  put(after.pending_revocation, after.epoch);
  return std::nullopt;
}

}  // namespace hw::broker::group::consumer
