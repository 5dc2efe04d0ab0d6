// A streams group as StreamsGroupDescribe shows it, as Kafka 4.3.1's
// asDescribedGroup: the declared topology until one is configured and ready
// (then internal topics with their decided partition counts), sorted topics
// and tasks, each member's identity, endpoint, tags, tasks and target.
#include <gtest/gtest.h>

#include "broker/group/streams/describe.h"

namespace hw::broker::group::streams {
namespace {

void replay(streams_group& g, const streams_group_record& r) {
  auto error = g.replay(r);
  ASSERT_FALSE(error) << *error;
}

topology declared() {
  topology t;
  t.epoch = 1;
  subtopology s1;
  s1.id = "1";
  s1.repartition_source_topics = {{"app-rep", 0, 0, {}}};
  s1.state_changelog_topics = {{"app-z-changelog", 0, 3, {}}, {"app-a-changelog", 0, 0, {}}};
  subtopology s0;
  s0.id = "0";
  s0.source_topics = {"orders", "customers"};
  s0.repartition_sink_topics = {"app-rep"};
  t.subtopologies = {s1, s0};
  return t;
}

streams_group sample() {
  streams_group g("app");
  group_metadata_record e;
  e.key.group_id = "app";
  e.value.emplace();
  e.value->epoch = 3;
  e.value->validated_topology_epoch = 1;
  replay(g, e);
  topology_record t;
  t.key.group_id = "app";
  t.value = to_value(declared());
  replay(g, t);
  member_metadata_record m;
  m.key.group_id = "app";
  m.key.member_id = "m1";
  m.value.emplace();
  m.value->process_id = "p1";
  m.value->client_id = "app-client";
  m.value->client_host = "/127.0.0.1";
  m.value->topology_epoch = 1;
  m.value->user_endpoint.emplace();
  m.value->user_endpoint->host = "h";
  m.value->user_endpoint->port = 9000;
  m.value->client_tags = {{"zone", "a", {}}};
  replay(g, m);
  current_assignment_record c;
  c.key.group_id = "app";
  c.key.member_id = "m1";
  c.value.emplace();
  c.value->member_epoch = 3;
  c.value->state = 1;
  c.value->active_tasks.push_back({"1", {2, 0}, std::nullopt, {}});
  c.value->standby_tasks.push_back({"0", {1}, std::nullopt, {}});
  replay(g, c);
  target_assignment_member_record target;
  target.key.group_id = "app";
  target.key.member_id = "m1";
  target.value.emplace();
  target.value->active_tasks.push_back({"0", {0, 1}, {}});
  replay(g, target);
  return g;
}

TEST(StreamsDescribe, TheDeclaredTopologyUntilOneIsConfigured) {
  auto g = sample();
  auto d = describe(g);
  EXPECT_EQ(d.group_id, "app");
  EXPECT_EQ(d.group_epoch, 3);
  EXPECT_EQ(d.group_state, "Assigning");  // the target is still at epoch 1
  EXPECT_EQ(d.assignment_epoch, 1);
  ASSERT_TRUE(d.topology && d.topology->subtopologies);
  EXPECT_EQ(d.topology->epoch, 1);
  const auto& subs = *d.topology->subtopologies;
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].subtopology_id, "0");
  EXPECT_EQ(subs[0].source_topics, (std::vector<std::string>{"customers", "orders"}));
  ASSERT_EQ(subs[1].state_changelog_topics.size(), 2u);
  EXPECT_EQ(subs[1].state_changelog_topics[0].name, "app-a-changelog");
  EXPECT_EQ(subs[1].state_changelog_topics[0].partitions, 0);  // as declared
  EXPECT_EQ(subs[1].state_changelog_topics[1].replication_factor, 3);
  ASSERT_EQ(d.members.size(), 1u);
  const auto& m = d.members[0];
  EXPECT_EQ(m.member_id, "m1");
  EXPECT_EQ(m.process_id, "p1");
  EXPECT_EQ(m.client_id, "app-client");
  ASSERT_TRUE(m.user_endpoint);
  EXPECT_EQ(m.user_endpoint->port, 9000);
  ASSERT_EQ(m.client_tags.size(), 1u);
  EXPECT_EQ(m.client_tags[0].key, "zone");
  ASSERT_EQ(m.assignment.active_tasks.size(), 1u);
  EXPECT_EQ(m.assignment.active_tasks[0].partitions, (std::vector<int32_t>{0, 2}));
  ASSERT_EQ(m.target_assignment.active_tasks.size(), 1u);
  EXPECT_EQ(m.target_assignment.active_tasks[0].subtopology_id, "0");
  EXPECT_FALSE(m.is_classic);
}

TEST(StreamsDescribe, AReadyConfiguredTopologyShowsTheDecidedCounts) {
  auto g = sample();
  auto configured = configure_topics(*g.declared_topology(), 0, [](const std::string& t) -> std::optional<int32_t> {
    if (t == "orders" || t == "customers") return 4;
    if (t == "app-rep" || t == "app-a-changelog" || t == "app-z-changelog") return 4;
    return std::nullopt;
  });
  ASSERT_TRUE(std::holds_alternative<configured_topology>(configured));
  ASSERT_TRUE(std::get<configured_topology>(configured).ready());
  g.set_configured(std::get<configured_topology>(configured));
  auto d = describe(g);
  ASSERT_TRUE(d.topology && d.topology->subtopologies);
  const auto& sub = (*d.topology->subtopologies)[1];
  EXPECT_EQ(sub.subtopology_id, "1");
  EXPECT_EQ(sub.repartition_source_topics[0].partitions, 4);
  EXPECT_EQ(sub.state_changelog_topics[0].partitions, 4);
  EXPECT_EQ(sub.state_changelog_topics[1].replication_factor, 3);
}

}  // namespace
}  // namespace hw::broker::group::streams
