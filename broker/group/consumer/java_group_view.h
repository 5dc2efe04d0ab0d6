#pragma once
// The group spec as Kafka's coordinator holds it in Java collections, for
// the assignors' internals: the members in the order its HashMap of member
// specs iterates them, and each member's partitions as the HashMap of
// HashSets Assignment.fromRecord builds from the member's record. The
// assignors change copies of these as Kafka's do (java_hash_map.h) and
// report each member's final iteration order as its listing. Pure.

#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/assignor.h"
#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"

namespace hw::broker::group::consumer {

using java_partition_set = java_hash_set<int32_t, java_integer_key>;
using member_partitions = java_hash_map<protocol::uuid, java_partition_set, java_uuid_key>;

// The members in the iteration order of a `new HashMap<>()` that took them
// in the spec's order (TargetAssignmentBuilder's map of member specs).
std::vector<const member_spec*> members_in_java_order(const group_spec& group);

// The member's current assignment as Assignment.fromRecord reads it back
// from its record (listed as assignment_listing, or ascending).
member_partitions current_partitions(const member_spec& member, jdk_release jdk);

// AssignorHelpers.deepCopyAssignment: a `new HashMap<>(size)` of
// `new HashSet<>(set)`s, filled in the original's iteration order.
member_partitions deep_copy(const member_partitions& partitions, jdk_release jdk);

// The subscription as `new HashSet<>(subscribedTopicIds())` copies it: sized
// for the subscription's size (names of no topic included), filled in its
// order.
java_hash_set<protocol::uuid, java_uuid_key> subscription_copy(const member_spec& member, jdk_release jdk);

// The record's lists: topics and partitions in iteration order.
partition_listing listing_of(const member_partitions& partitions);
topic_partitions contents_of(const member_partitions& partitions);

// One member's partitions while an assignor works: the map read back from
// its record until something changes, then a deep copy of it (Kafka's
// assignors never alter the map they were given and copy it at the first
// change, which can reorder it).
struct working_partitions {
  member_partitions given;
  jdk_release jdk;
  std::optional<member_partitions> changed;

  const member_partitions& current() const { return changed ? *changed : given; }
  member_partitions& writable() {
    if (!changed) changed = deep_copy(given, jdk);
    return *changed;
  }
};

// Adds a member's final partitions to the answer.
void add_to_answer(group_assignment& answer, const std::string& member_id, const member_partitions& partitions);

}  // namespace hw::broker::group::consumer
