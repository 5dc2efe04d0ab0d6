// A consumer group's next target assignment: members' subscriptions
// resolved (names and regular expressions), the heartbeat's change applied,
// the assignor asked, and only the changed members' targets written, then
// the target epoch.
#include "broker/group/consumer/target_assignment.h"

#include <gtest/gtest.h>

#include "tests/broker/consumer_group_support.h"

namespace hw::broker::group::consumer {
namespace {

using testing::topic_map_image;
const auto topic = testing::topic_id_of;

consumer_member member(const std::string& id, std::set<std::string> topics, std::string regex = "",
                       std::optional<std::string> instance = std::nullopt) {
  consumer_member m;
  m.member_id = id;
  m.subscription.client_id = "client";
  m.subscription.subscribed_topic_names = std::move(topics);
  m.subscription.subscribed_topic_regex = std::move(regex);
  m.subscription.instance_id = std::move(instance);
  return m;
}

void add_member(consumer_group& g, const consumer_member& m) {
  member_metadata_record r;
  r.key.group_id = g.group_id();
  r.key.member_id = m.member_id;
  r.value = to_value(m.subscription);
  ASSERT_FALSE(g.replay(r));
}

// Writes the result's records into the group, as the coordinator does.
void apply(consumer_group& g, const target_assignment_result& result) {
  for (const auto& r : result.records) ASSERT_FALSE(g.replay(r));
}

target_assignment_result assign(const consumer_group& g, const topic_map_image& topics, int32_t epoch, const member_change& change,
                                const std::string& name = "uniform") {
  auto assignor = make_assignor(name);
  auto result = compute_target_assignment(g, epoch, 1000 + epoch, *assignor, topics, change);
  EXPECT_TRUE(std::holds_alternative<target_assignment_result>(result));
  return std::get<target_assignment_result>(result);
}

size_t count(const topic_partitions& p) {
  size_t n = 0;
  for (const auto& [t, parts] : p) n += parts.size();
  return n;
}

std::vector<std::string> written_members(const target_assignment_result& r) {
  std::vector<std::string> out;
  for (const auto& rec : r.records)
    if (auto* t = std::get_if<target_assignment_member_record>(&rec)) out.push_back(t->key.member_id);
  return out;
}

TEST(TargetAssignment, MembersJoiningShareTheTopicAndEachChangeIsWritten) {
  topic_map_image topics;
  topics.add("orders", 1, 6);
  consumer_group g("g");
  for (const auto* id : {"a", "b", "c"}) {
    const auto m = member(id, {"orders"});
    auto result = assign(g, topics, g.group_epoch() + 1, {m, std::nullopt});
    add_member(g, m);
    apply(g, result);
  }
  ASSERT_EQ(g.target_assignment().size(), 3u);
  for (const auto& [id, target] : g.target_assignment()) EXPECT_EQ(count(target), 2u) << id;
  EXPECT_EQ(g.assignment_epoch(), 2);  // the epoch the last computation was told (a new group is at 1)
  EXPECT_EQ(g.assignment_timestamp_ms(), 1002);
}

TEST(TargetAssignment, AMemberLeavingGivesItsPartitionsToTheOthers) {
  topic_map_image topics;
  topics.add("orders", 1, 6);
  consumer_group g("g");
  for (const auto* id : {"a", "b", "c"}) add_member(g, member(id, {"orders"}));
  apply(g, assign(g, topics, 1, {}));
  const auto before = g.target_assignment();
  auto result = assign(g, topics, 2, {std::nullopt, std::string("c")});
  EXPECT_EQ(result.members.count("c"), 0u);
  EXPECT_EQ(count(result.members.at("a")) + count(result.members.at("b")), 6u);
  // Sticky: a and b keep what they had and take c's.
  for (const auto* id : {"a", "b"}) {
    for (const auto& [t, parts] : before.at(id))
      for (int32_t p : parts) EXPECT_TRUE(result.members.at(id).at(t).count(p)) << id << " lost " << p;
  }
  EXPECT_EQ(written_members(result), (std::vector<std::string>{"a", "b"}));
  const auto& last = std::get<target_assignment_epoch_record>(result.records.back());
  EXPECT_EQ(last.value->assignment_epoch, 2);
}

TEST(TargetAssignment, NothingChangedWritesOnlyTheEpoch) {
  topic_map_image topics;
  topics.add("orders", 1, 4);
  consumer_group g("g");
  for (const auto* id : {"a", "b"}) add_member(g, member(id, {"orders"}));
  apply(g, assign(g, topics, 1, {}));
  auto again = assign(g, topics, 2, {});
  EXPECT_TRUE(written_members(again).empty());
  EXPECT_EQ(again.records.size(), 1u);
}

TEST(TargetAssignment, AStaticMemberBackUnderANewIdStartsFromItsOldTarget) {
  topic_map_image topics;
  topics.add("orders", 1, 4);
  consumer_group g("g");
  add_member(g, member("a", {"orders"}));
  add_member(g, member("s1", {"orders"}, "", "instance-1"));
  apply(g, assign(g, topics, 1, {}));
  const auto old_target = g.target_assignment().at("s1");
  auto result = assign(g, topics, 2, {member("s2", {"orders"}, "", "instance-1"), std::nullopt});
  EXPECT_EQ(result.members.count("s1"), 0u);
  EXPECT_EQ(result.members.at("s2"), old_target);
  EXPECT_EQ(written_members(result), (std::vector<std::string>{"s2"}));
}

TEST(TargetAssignment, RegularExpressionsAndNamesResolveToTopicIds) {
  topic_map_image topics;
  topics.add("cap-a", 1, 2);
  topics.add("cap-b", 2, 2);
  topics.add("other", 3, 1);
  consumer_group g("g");
  regular_expression_record re;
  re.key.group_id = "g";
  re.key.regular_expression = "cap-.*";
  re.value.emplace();
  re.value->topics = {"cap-a", "cap-b"};
  ASSERT_FALSE(g.replay(re));
  add_member(g, member("r", {}, "cap-.*"));
  const auto named = member("n", {"other", "missing"});
  const auto spec = spec_of(named, g, topics, {});
  EXPECT_EQ(spec.subscribed_topic_ids, std::vector<protocol::uuid>{topic(3)});
  EXPECT_EQ(spec.unresolved_topic_names, 1);
  auto result = assign(g, topics, 1, {named, std::nullopt});
  EXPECT_EQ(count(result.members.at("r")), 4u);  // every cap- partition
  EXPECT_EQ(count(result.members.at("n")), 1u);  // other's only partition
  // Range assigns the same topics, in ranges.
  auto ranged = assign(g, topics, 1, {named, std::nullopt}, "range");
  EXPECT_EQ(count(ranged.members.at("r")), 4u);
}

}  // namespace
}  // namespace hw::broker::group::consumer
