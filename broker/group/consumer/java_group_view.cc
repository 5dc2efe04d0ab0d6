#include "broker/group/consumer/java_group_view.h"

#include <cassert>

namespace hw::broker::group::consumer {

std::vector<const member_spec*> members_in_java_order(const group_spec& group) {
  java_hash_map<std::string, const member_spec*, java_string_key> by_id;
  for (const member_spec& m : group.members) {
    [[maybe_unused]] bool added = by_id.put(m.member_id, &m);
    assert(added && "a member id appears twice in the group spec");
  }
  std::vector<const member_spec*> out;
  out.reserve(group.members.size());
  by_id.for_each([&](const std::string&, const member_spec* m) { out.push_back(m); });
  return out;
}

member_partitions current_partitions(const member_spec& member, jdk_release jdk) {
  // fromRecord collects the record's topics into a `new HashMap<>()`, each
  // topic's partition list copied into a `new HashSet<>(list)`.
  partition_listing ascending;
  if (!member.assignment_listing) ascending = ascending_listing(member.assignment);
  const partition_listing& listing = member.assignment_listing ? *member.assignment_listing : ascending;
  assert(partitions_of(listing) == member.assignment && "the listing lists other partitions");
  member_partitions out;
  for (const listed_topic& t : listing) {
    auto set = java_partition_set::sized_for_copy(t.partitions.size(), jdk);
    for (int32_t p : t.partitions) set.add(p);
    [[maybe_unused]] bool added = out.put(t.topic_id, std::move(set));
    assert(added && "a record lists a topic twice");
  }
  return out;
}

member_partitions deep_copy(const member_partitions& partitions, jdk_release jdk) {
  member_partitions out(static_cast<int32_t>(partitions.size()));
  partitions.for_each([&](const protocol::uuid& topic, const java_partition_set& set) {
    auto copy = java_partition_set::sized_for_copy(set.size(), jdk);
    set.for_each([&](int32_t p) { copy.add(p); });
    out.put(topic, std::move(copy));
  });
  return out;
}

java_hash_set<protocol::uuid, java_uuid_key> subscription_copy(const member_spec& member, jdk_release jdk) {
  auto out = java_hash_set<protocol::uuid, java_uuid_key>::sized_for_copy(
      member.subscribed_topic_ids.size() + static_cast<size_t>(member.unresolved_topic_names), jdk);
  for (const protocol::uuid& id : member.subscribed_topic_ids) out.add(id);
  return out;
}

partition_listing listing_of(const member_partitions& partitions) {
  partition_listing out;
  out.reserve(partitions.size());
  partitions.for_each([&](const protocol::uuid& topic, const java_partition_set& set) {
    out.push_back(listed_topic{topic, set.elements()});
  });
  return out;
}

topic_partitions contents_of(const member_partitions& partitions) {
  topic_partitions out;
  partitions.for_each([&](const protocol::uuid& topic, const java_partition_set& set) {
    auto& target = out[topic];
    set.for_each([&](int32_t p) { target.insert(p); });
  });
  return out;
}

void add_to_answer(group_assignment& answer, const std::string& member_id, const member_partitions& partitions) {
  answer.members[member_id] = contents_of(partitions);
  answer.listings[member_id] = listing_of(partitions);
}

}  // namespace hw::broker::group::consumer
