#include "broker/group/consumer/uniform_homogeneous_builder.h"

#include <optional>
#include <utility>

#include "broker/group/consumer/java_group_view.h"

namespace hw::broker::group::consumer {

namespace {

struct topic_partition {
  protocol::uuid topic_id;
  int32_t partition;
};

struct member_state {
  const member_spec* spec;
  working_partitions partitions;
};

class homogeneous_builder {
 public:
  homogeneous_builder(const group_spec& group, const topic_describer& topics, jdk_release jdk)
      : group_(group), topics_(topics), jdk_(jdk), order_(members_in_java_order(group)) {}

  assignment_result build();

 private:
  std::optional<assignor_error> queue_free_partitions();
  void keep_within_quotas();
  void keep_within_quota(member_state& member, int32_t& quota);
  std::optional<assignor_error> fill_members();

  bool is_owned(const protocol::uuid& topic_id, int32_t partition) const {
    auto it = group_.owners.find(topic_id);
    return it != group_.owners.end() && it->second.contains(partition);
  }

  const group_spec& group_;
  const topic_describer& topics_;
  jdk_release jdk_;
  std::vector<const member_spec*> order_;
  java_hash_set<protocol::uuid, java_uuid_key> subscribed_;
  std::vector<member_state> members_;
  std::vector<topic_partition> free_;
  // Members below their quota once they kept what they could, in order,
  // with how many partitions each still takes.
  std::vector<std::pair<size_t, int32_t>> unfilled_;
  int32_t total_partitions_ = 0;
  int32_t minimum_quota_ = 0;
  int32_t extras_left_ = 0;
};

assignment_result homogeneous_builder::build() {
  // Kafka takes the topics from whichever member its map yields first.
  subscribed_ = subscription_copy(*order_.front(), jdk_);
  if (subscribed_.empty()) return group_assignment{};
  if (auto error = queue_free_partitions()) return *error;

  auto member_count = static_cast<int32_t>(order_.size());
  minimum_quota_ = total_partitions_ / member_count;
  extras_left_ = total_partitions_ % member_count;

  members_.reserve(order_.size());
  for (const member_spec* m : order_)
    members_.push_back(member_state{m, {current_partitions(*m, jdk_), jdk_, std::nullopt}});
  keep_within_quotas();
  if (auto error = fill_members()) return *error;

  group_assignment answer;
  for (const member_state& m : members_) add_to_answer(answer, m.spec->member_id, m.partitions.current());
  return answer;
}

// Every partition of the subscribed topics that no member holds, topic by
// topic in the subscription's order.
std::optional<assignor_error> homogeneous_builder::queue_free_partitions() {
  std::optional<assignor_error> error;
  subscribed_.for_each([&](const protocol::uuid& topic_id) {
    if (error) return;
    int32_t count = topics_.partition_count(topic_id);
    if (count == -1) {
      error = assignor_error{"Members are subscribed to topic " + topic_id.to_string() +
                             " which doesn't exist in the topic metadata."};
      return;
    }
    for (int32_t p = 0; p < count; ++p)
      if (!is_owned(topic_id, p)) free_.push_back({topic_id, p});
    total_partitions_ += count;
  });
  return error;
}

// Each member in turn keeps what it holds up to its quota. The extra
// partitions go to the first members that already hold enough to use one;
// a member that cannot fill its extra gives it up unless it is one of the
// last members, who must take the extras still unclaimed.
void homogeneous_builder::keep_within_quotas() {
  auto member_count = static_cast<int32_t>(members_.size());
  for (int32_t index = 0; index < member_count; ++index) {
    member_state& member = members_[static_cast<size_t>(index)];
    int32_t quota = minimum_quota_;
    bool has_extra = false;
    if (extras_left_ > 0) {
      ++quota;
      has_extra = true;
    }
    keep_within_quota(member, quota);
    if (quota > 0 && has_extra && member_count - index > extras_left_) {
      --quota;
      has_extra = false;
    }
    if (quota > 0) unfilled_.emplace_back(static_cast<size_t>(index), quota);
    if (has_extra) --extras_left_;
  }
}

// Walks what the member holds in its map's order: topics no longer
// subscribed go, subscribed partitions stay while the quota lasts and are
// queued as free past it. `quota` ends as what the member still takes.
void homogeneous_builder::keep_within_quota(member_state& member, int32_t& quota) {
  // The walk reads the map as it was given while the changes go to the copy.
  member.partitions.given.for_each([&](const protocol::uuid& topic_id, const java_partition_set& partitions) {
    if (!subscribed_.contains(topic_id)) {
      member.partitions.writable().erase(topic_id);
      return;
    }
    if (static_cast<int32_t>(partitions.size()) <= quota) {
      quota -= static_cast<int32_t>(partitions.size());
      return;
    }
    partitions.for_each([&](int32_t p) {
      if (quota > 0) {
        --quota;
        return;
      }
      member_partitions& kept = member.partitions.writable();
      java_partition_set* set = kept.find(topic_id);
      set->erase(p);
      if (set->empty()) kept.erase(topic_id);
      free_.push_back({topic_id, p});
    });
  });
}

// The members below quota take the free partitions in queue order, each
// filling its quota before the next. Kafka copies a member's map here even
// when no partition is left for it, which can change its order.
std::optional<assignor_error> homogeneous_builder::fill_members() {
  size_t next = 0;
  for (auto [index, quota] : unfilled_) {
    member_partitions& partitions = members_[index].partitions.writable();
    for (int32_t i = 0; i < quota && next < free_.size(); ++i, ++next) {
      const topic_partition& tp = free_[next];
      partitions.compute_if_absent(tp.topic_id, [] { return java_partition_set(); }).add(tp.partition);
    }
  }
  if (next < free_.size()) return assignor_error{"Partitions were left unassigned"};
  return std::nullopt;
}

}  // namespace

assignment_result build_uniform_homogeneous(const group_spec& group, const topic_describer& topics, jdk_release jdk) {
  return homogeneous_builder(group, topics, jdk).build();
}

}  // namespace hw::broker::group::consumer
