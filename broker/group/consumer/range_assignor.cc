#include "broker/group/consumer/range_assignor.h"

#include <algorithm>
#include <map>
#include <optional>

#include "broker/group/consumer/java_group_view.h"

namespace hw::broker::group::consumer {

namespace {

const char kUnknownTopic[] = "Member is subscribed to a non-existent topic";

// One topic's ranges as they are handed out.
struct topic_ranges {
  int32_t partition_count = 0;
  int32_t subscribers = 0;
  int32_t next = 0;    // start of the next range
  int32_t quota = -1;  // -1 until the first range is cut
  int32_t extras = -1;

  // The next subscriber's range [first, second).
  std::pair<int32_t, int32_t> cut() {
    if (quota == -1) {
      quota = partition_count / subscribers;
      extras = partition_count % subscribers;
    }
    int32_t size = quota;
    if (extras > 0) {
      ++size;
      --extras;
    }
    int32_t start = next;
    next = std::min(start + size, partition_count);
    return {start, next};
  }
};

// Static members first, by instance id; then the others by member id. The
// sort is stable over the map's order, as Java's List.sort is.
std::vector<const member_spec*> sorted_members(const group_spec& group) {
  std::vector<const member_spec*> out = members_in_java_order(group);
  std::stable_sort(out.begin(), out.end(), [](const member_spec* a, const member_spec* b) {
    if (a->instance_id && b->instance_id) return java_string_compare(*a->instance_id, *b->instance_id) < 0;
    if (a->instance_id || b->instance_id) return a->instance_id.has_value();
    return java_string_compare(a->member_id, b->member_id) < 0;
  });
  return out;
}

// A member's answer: a HashMap of the ranges sized as Kafka sizes it, so
// that its listing comes out in Kafka's order; each range lists ascending.
class member_ranges {
 public:
  explicit member_ranges(size_t expected_topics)
      : ranges_(static_cast<int32_t>(static_cast<float>(expected_topics) / 0.75f + 1.0f)) {}

  void add(const protocol::uuid& topic_id, std::pair<int32_t, int32_t> range) {
    if (range.first < range.second) ranges_.put(topic_id, range);
  }

  void answer(group_assignment& out, const std::string& member_id) const {
    topic_partitions& members = out.members[member_id];
    partition_listing& listing = out.listings[member_id];
    ranges_.for_each([&](const protocol::uuid& topic_id, const std::pair<int32_t, int32_t>& range) {
      listed_topic listed{topic_id, {}};
      for (int32_t p = range.first; p < range.second; ++p) listed.partitions.push_back(p);
      members[topic_id].insert(listed.partitions.begin(), listed.partitions.end());
      listing.push_back(std::move(listed));
    });
  }

 private:
  java_hash_map<protocol::uuid, std::pair<int32_t, int32_t>, java_uuid_key> ranges_;
};

// All members subscribe to the first sorted member's topics.
assignment_result assign_homogeneous(const group_spec& group, const topic_describer& topics) {
  std::vector<const member_spec*> members = sorted_members(group);
  std::vector<std::pair<protocol::uuid, topic_ranges>> subscribed;
  for (const protocol::uuid& topic_id : members.front()->subscribed_topic_ids) {
    int32_t count = topics.partition_count(topic_id);
    if (count == -1) return assignor_error{kUnknownTopic};
    subscribed.emplace_back(topic_id, topic_ranges{count, static_cast<int32_t>(members.size())});
  }
  group_assignment answer;
  for (const member_spec* m : members) {
    member_ranges ranges(subscribed.size());
    for (auto& [topic_id, topic] : subscribed) ranges.add(topic_id, topic.cut());
    ranges.answer(answer, m->member_id);
  }
  return answer;
}

// Each topic's ranges among its own subscribers.
assignment_result assign_heterogeneous(const group_spec& group, const topic_describer& topics) {
  std::vector<const member_spec*> members = sorted_members(group);
  std::map<protocol::uuid, topic_ranges> subscribed;
  for (const member_spec* m : members) {
    for (const protocol::uuid& topic_id : m->subscribed_topic_ids) {
      auto it = subscribed.find(topic_id);
      if (it == subscribed.end()) {
        int32_t count = topics.partition_count(topic_id);
        if (count == -1) return assignor_error{kUnknownTopic};
        it = subscribed.emplace(topic_id, topic_ranges{count, 0}).first;
      }
      ++it->second.subscribers;
    }
  }
  group_assignment answer;
  for (const member_spec* m : members) {
    // Kafka sizes this map by the subscription's size, names of no topic
    // included.
    member_ranges ranges(m->subscribed_topic_ids.size() + static_cast<size_t>(m->unresolved_topic_names));
    for (const protocol::uuid& topic_id : m->subscribed_topic_ids) ranges.add(topic_id, subscribed.at(topic_id).cut());
    ranges.answer(answer, m->member_id);
  }
  return answer;
}

}  // namespace

assignment_result range_assignor::assign(const group_spec& group, const topic_describer& topics) const {
  if (group.members.empty()) return group_assignment{};
  if (group.subscription == subscription_type::homogeneous) return assign_homogeneous(group, topics);
  return assign_heterogeneous(group, topics);
}

}  // namespace hw::broker::group::consumer
