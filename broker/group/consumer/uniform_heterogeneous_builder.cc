#include "broker/group/consumer/uniform_heterogeneous_builder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "broker/group/consumer/java_group_view.h"
#include "broker/group/consumer/load_balancer.h"

namespace hw::broker::group::consumer {

namespace {

constexpr int32_t kNoOwner = -1;
// Rounds over the topics in the last phase: enough for a reasonable balance
// when subscriptions overlap without being equal, where each round roughly
// halves the imbalance (Kafka's bound).
constexpr int kMaxBalancingRounds = 16;

struct topic_state {
  int32_t partition_count = 0;
  std::vector<int32_t> subscribers;  // member numbers, ascending
  std::vector<int32_t> owners;       // by partition; kNoOwner when free
};

class heterogeneous_builder {
 public:
  heterogeneous_builder(const group_spec& group, const topic_describer& topics, jdk_release jdk)
      : order_(members_in_java_order(group)), topics_(topics), jdk_(jdk), sizes_(order_.size(), 0) {}

  assignment_result build();

 private:
  std::optional<assignor_error> collect_topics();
  std::optional<assignor_error> keep_subscribed();
  void assign_free_partitions();
  void balance();
  int32_t balance_topic(const protocol::uuid& topic_id, load_balancer& balancer);
  void sort_topics(std::vector<protocol::uuid>& topic_ids) const;
  void assign(const protocol::uuid& topic_id, int32_t partition, int32_t member);
  void add(const protocol::uuid& topic_id, int32_t partition, int32_t member);
  void remove(const protocol::uuid& topic_id, int32_t partition, int32_t member);

  std::vector<const member_spec*> order_;
  const topic_describer& topics_;
  jdk_release jdk_;
  std::map<protocol::uuid, topic_state> subscribed_;
  std::vector<working_partitions> partitions_;  // by member number
  std::vector<int32_t> sizes_;                  // partitions per member, by number
};

assignment_result heterogeneous_builder::build() {
  if (auto error = collect_topics()) return *error;
  if (subscribed_.empty()) return group_assignment{};
  if (auto error = keep_subscribed()) return *error;
  assign_free_partitions();
  balance();
  group_assignment answer;
  for (size_t m = 0; m < order_.size(); ++m) add_to_answer(answer, order_[m]->member_id, partitions_[m].current());
  return answer;
}

// The subscribed topics and their subscribers; the first unknown topic, in
// member order then subscription order, fails the assignment.
std::optional<assignor_error> heterogeneous_builder::collect_topics() {
  for (size_t m = 0; m < order_.size(); ++m) {
    for (const protocol::uuid& topic_id : order_[m]->subscribed_topic_ids) {
      int32_t count = topics_.partition_count(topic_id);
      if (count == -1) {
        return assignor_error{"Members are subscribed to topic " + topic_id.to_string() +
                              " which doesn't exist in the topic metadata."};
      }
      topic_state& topic = subscribed_[topic_id];
      topic.partition_count = count;
      topic.subscribers.push_back(static_cast<int32_t>(m));
    }
  }
  for (auto& [id, topic] : subscribed_) topic.owners.assign(static_cast<size_t>(topic.partition_count), kNoOwner);
  return std::nullopt;
}

// Each member keeps what it holds of the topics it subscribes to and drops
// the other topics.
std::optional<assignor_error> heterogeneous_builder::keep_subscribed() {
  partitions_.reserve(order_.size());
  for (size_t m = 0; m < order_.size(); ++m) {
    const member_spec& member = *order_[m];
    std::set<protocol::uuid> subscription(member.subscribed_topic_ids.begin(), member.subscribed_topic_ids.end());
    working_partitions& held =
        partitions_.emplace_back(working_partitions{current_partitions(member, jdk_), jdk_, std::nullopt});
    std::optional<assignor_error> error;
    held.given.for_each([&](const protocol::uuid& topic_id, const java_partition_set& set) {
      if (!subscription.contains(topic_id)) {
        held.writable().erase(topic_id);
        return;
      }
      topic_state& topic = subscribed_.at(topic_id);
      sizes_[m] += static_cast<int32_t>(set.size());
      set.for_each([&](int32_t p) {
        // Kafka indexes an array here and fails with an unchecked exception;
        // partitions never shrink, so only inconsistent input gets here.
        if (p < 0 || p >= topic.partition_count) {
          if (!error) error = assignor_error{"Member " + member.member_id + " holds partition " + std::to_string(p) +
                                             " of topic " + topic_id.to_string() + " beyond its partition count"};
          return;
        }
        topic.owners[static_cast<size_t>(p)] = static_cast<int32_t>(m);
      });
    });
    if (error) return error;
  }
  return std::nullopt;
}

// Free partitions, topic by topic in balancing order, each to the least
// loaded of the topic's subscribers.
void heterogeneous_builder::assign_free_partitions() {
  std::map<protocol::uuid, std::vector<int32_t>> free;
  for (const auto& [topic_id, topic] : subscribed_) {
    for (int32_t p = 0; p < topic.partition_count; ++p)
      if (topic.owners[static_cast<size_t>(p)] == kNoOwner) free[topic_id].push_back(p);
  }
  std::vector<protocol::uuid> order;
  for (const auto& [topic_id, partitions] : free) order.push_back(topic_id);
  sort_topics(order);
  load_balancer balancer(sizes_);
  for (const protocol::uuid& topic_id : order) {
    balancer.initialize(subscribed_.at(topic_id).subscribers);
    for (int32_t p : free.at(topic_id)) assign(topic_id, p, balancer.next_least_loaded());
  }
}

// Rounds over the topics with two subscribers or more, moving partitions
// from their most to their least loaded subscribers, until a whole round
// moves nothing or the rounds run out.
void heterogeneous_builder::balance() {
  std::vector<protocol::uuid> order;
  for (const auto& [topic_id, topic] : subscribed_)
    if (topic.subscribers.size() >= 2) order.push_back(topic_id);
  if (order.empty()) return;
  sort_topics(order);
  load_balancer balancer(sizes_);
  int last_moved = -1;  // the last topic that moved a partition (the first topic until one does)
  for (int round = 0; round < kMaxBalancingRounds; ++round) {
    for (int index = 0; index < static_cast<int>(order.size()); ++index) {
      if (index == last_moved) return;
      int32_t moved = balance_topic(order[static_cast<size_t>(index)], balancer);
      if (moved > 0 || last_moved == -1) last_moved = index;
    }
  }
}

// Moves the topic's partitions from its most loaded subscribers to its least
// loaded ones while that narrows the gap; returns how many moved. A member
// gives up its partitions of the topic from the highest number down.
int32_t heterogeneous_builder::balance_topic(const protocol::uuid& topic_id, load_balancer& balancer) {
  const topic_state& topic = subscribed_.at(topic_id);
  if (balancer.initialize(topic.subscribers) <= 1) return 0;

  // The partitions grouped by owner, each owner's a range [start, end).
  std::vector<int32_t> by_owner(static_cast<size_t>(topic.partition_count));
  for (int32_t p = 0; p < topic.partition_count; ++p) by_owner[static_cast<size_t>(p)] = p;
  std::stable_sort(by_owner.begin(), by_owner.end(), [&](int32_t a, int32_t b) {
    return topic.owners[static_cast<size_t>(a)] < topic.owners[static_cast<size_t>(b)];
  });
  std::map<int32_t, int32_t> start, end;
  for (int32_t i = 0; i < topic.partition_count; ++i) {
    int32_t owner = topic.owners[static_cast<size_t>(by_owner[static_cast<size_t>(i)])];
    start.try_emplace(owner, i);
    end[owner] = i + 1;
  }

  int32_t moved = 0;
  while (!balancer.is_balanced()) {
    int32_t giver = balancer.next_most_loaded();
    while (giver != load_balancer::kNone && (!end.contains(giver) || end[giver] - start[giver] <= 0)) {
      balancer.exclude_most_loaded();
      giver = balancer.next_most_loaded();
    }
    if (giver == load_balancer::kNone) break;
    int32_t partition = by_owner[static_cast<size_t>(--end[giver])];
    int32_t taker = balancer.next_least_loaded();
    if (balancer.is_balanced()) break;
    assign(topic_id, partition, taker);
    ++moved;
  }
  return moved;
}

// Partitions per subscriber, descending; then subscribers, ascending; then
// the topic id as Java's Uuid.compareTo orders it.
void heterogeneous_builder::sort_topics(std::vector<protocol::uuid>& topic_ids) const {
  std::sort(topic_ids.begin(), topic_ids.end(), [&](const protocol::uuid& a, const protocol::uuid& b) {
    const topic_state& ta = subscribed_.at(a);
    const topic_state& tb = subscribed_.at(b);
    double per_a = static_cast<double>(ta.partition_count) / static_cast<double>(ta.subscribers.size());
    double per_b = static_cast<double>(tb.partition_count) / static_cast<double>(tb.subscribers.size());
    if (per_a != per_b) return per_a > per_b;
    if (ta.subscribers.size() != tb.subscribers.size()) return ta.subscribers.size() < tb.subscribers.size();
    return java_uuid_compare(a, b) < 0;
  });
}

void heterogeneous_builder::assign(const protocol::uuid& topic_id, int32_t partition, int32_t member) {
  int32_t previous = subscribed_.at(topic_id).owners[static_cast<size_t>(partition)];
  if (previous != kNoOwner) remove(topic_id, partition, previous);
  add(topic_id, partition, member);
}

void heterogeneous_builder::add(const protocol::uuid& topic_id, int32_t partition, int32_t member) {
  topic_state& topic = subscribed_.at(topic_id);
  auto subscribers = static_cast<int32_t>(topic.subscribers.size());
  // Kafka sizes a member's new set of the topic for its fair share.
  int32_t share = (topic.partition_count + subscribers - 1) / subscribers;
  auto capacity = static_cast<int32_t>(static_cast<float>(share) / 0.75f + 1.0f);
  partitions_[static_cast<size_t>(member)]
      .writable()
      .compute_if_absent(topic_id, [&] { return java_partition_set(capacity); })
      .add(partition);
  topic.owners[static_cast<size_t>(partition)] = member;
  ++sizes_[static_cast<size_t>(member)];
}

void heterogeneous_builder::remove(const protocol::uuid& topic_id, int32_t partition, int32_t member) {
  member_partitions& held = partitions_[static_cast<size_t>(member)].writable();
  if (java_partition_set* set = held.find(topic_id)) {
    set->erase(partition);
    if (set->empty()) held.erase(topic_id);
  }
  subscribed_.at(topic_id).owners[static_cast<size_t>(partition)] = kNoOwner;
  --sizes_[static_cast<size_t>(member)];
}

}  // namespace

assignment_result build_uniform_heterogeneous(const group_spec& group, const topic_describer& topics,
                                              jdk_release jdk) {
  return heterogeneous_builder(group, topics, jdk).build();
}

}  // namespace hw::broker::group::consumer
