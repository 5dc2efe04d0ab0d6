#pragma once
// Which member epoch holds each partition of a consumer group now (Kafka's
// "current partition epoch" map of ConsumerGroup): a partition a member has
// assigned or pending revocation is held at that member's epoch, and no
// other member may be given it until the holder lets it go. Reconciliation
// asks it (`owner_epoch`); the group updates it each time it replaces,
// adds or removes a member. Pure; owned by its group, on the shard's strand.
//
// An update that would give a partition to a member while someone holds it
// at the same or a newer epoch is a broken invariant (Kafka throws
// IllegalStateException): it is refused, nothing changes, and the conflict
// is returned for the caller to fail the request with.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>

#include "broker/group/consumer/consumer_member.h"
#include "broker/group/consumer/member_epoch.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

// A partition that could not be recorded at `epoch`: it is held at `held`.
struct partition_epoch_conflict {
  protocol::uuid topic_id;
  int32_t partition = 0;
  member_epoch epoch;
  member_epoch held;

  bool operator==(const partition_epoch_conflict&) const = default;
};

class partition_epochs {
 public:
  // The epoch of the member that holds the partition, nullopt when free.
  std::optional<member_epoch> owner_epoch(const protocol::uuid& topic_id, int32_t partition) const;

  // Records `partitions` as held at `epoch`. Refused as a whole if one of
  // them is held at `epoch` or later (or listed twice).
  [[nodiscard]] std::optional<partition_epoch_conflict> add(const partitions_with_epochs& partitions,
                                                            member_epoch epoch);
  // Frees `partitions` where they are held at `epoch`. One held at another
  // epoch has been taken over meanwhile and is left as it is (Kafka only
  // logs it).
  void remove(const partitions_with_epochs& partitions, member_epoch epoch);

  // A member's whole holding: its assigned and pending-revocation
  // partitions at its epoch. `update` is remove(before) then add(after),
  // refused as a whole (nothing changes) when the add would conflict.
  [[nodiscard]] std::optional<partition_epoch_conflict> add_member(const member_assignment& member);
  void remove_member(const member_assignment& member);
  [[nodiscard]] std::optional<partition_epoch_conflict> update_member(const member_assignment& before,
                                                                      const member_assignment& after);

  bool empty() const { return epochs_.empty(); }
  // Every held partition, for checks and tests.
  const std::map<protocol::uuid, std::map<int32_t, member_epoch>>& all() const { return epochs_; }

 private:
  // The first conflict adding `lists` at `epoch` would hit, counting as
  // free what `freed` (if any) holds at its own epoch.
  std::optional<partition_epoch_conflict> find_conflict(std::initializer_list<const partitions_with_epochs*> lists,
                                                        member_epoch epoch, const member_assignment* freed) const;
  void put(const partitions_with_epochs& partitions, member_epoch epoch);

  std::map<protocol::uuid, std::map<int32_t, member_epoch>> epochs_;
};

}  // namespace hw::broker::group::consumer
