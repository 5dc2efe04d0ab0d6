// A streams group's next target assignment: the sticky assignor over the
// members (each starting from its last target) when the topology is ready,
// empty targets while it is not, a record only for a member whose target
// changed, then the target's epoch.
#include <gtest/gtest.h>

#include "broker/group/streams/target_assignment.h"

namespace hw::broker::group::streams {
namespace {

void replay(streams_group& g, const streams_group_record& r) {
  auto error = g.replay(r);
  ASSERT_FALSE(error) << *error;
}

streams_member member(const std::string& id, const std::string& process) {
  streams_member m;
  m.member_id = id;
  m.process_id = process;
  return m;
}

member_metadata_record metadata(const std::string& id, const std::string& process) {
  member_metadata_record r;
  r.key.group_id = "app";
  r.key.member_id = id;
  r.value.emplace();
  r.value->process_id = process;
  return r;
}

configured_topology ready(int32_t tasks, bool stateful) {
  configured_topology c;
  configured_subtopology s;
  s.tasks = tasks;
  if (stateful) s.state_changelog_topics["app-store-changelog"] = {"app-store-changelog", tasks, std::nullopt, {}};
  c.subtopologies = std::map<std::string, configured_subtopology>{{"0", s}};
  return c;
}

int count(const task_set& tasks) {
  int n = 0;
  for (const auto& [id, ps] : tasks) n += static_cast<int>(ps.size());
  return n;
}

TEST(StreamsTarget, TheAssignorSplitsTheTasksAndOnlyChangesAreWritten) {
  streams_group g("app");
  replay(g, metadata("a", "p1"));
  auto first = compute_streams_target(g, 2, 1000, {member("b", "p2"), std::nullopt}, ready(4, true), 1);
  ASSERT_TRUE(std::holds_alternative<streams_target_result>(first));
  const auto& r = std::get<streams_target_result>(first);
  ASSERT_EQ(r.records.size(), 3u);  // a, b, then the epoch
  EXPECT_EQ(count(r.target.at("a").active), 2);
  EXPECT_EQ(count(r.target.at("b").active), 2);
  // One standby replica of each task, never beside its active copy.
  EXPECT_EQ(count(r.target.at("a").standby) + count(r.target.at("b").standby), 4);
  for (const auto& [id, t] : r.target)
    for (int32_t p : t.active.count("0") ? t.active.at("0") : std::set<int32_t>{})
      EXPECT_FALSE(t.standby.count("0") && t.standby.at("0").count(p)) << id << " " << p;
  auto* epoch = std::get_if<target_assignment_epoch_record>(&r.records.back());
  ASSERT_NE(epoch, nullptr);
  EXPECT_EQ(epoch->value->assignment_epoch, 2);
  EXPECT_EQ(epoch->value->assignment_timestamp, 1000);
  // Replayed, the same members get the same targets: only the epoch is written.
  replay(g, metadata("b", "p2"));
  for (const auto& rec : r.records) replay(g, rec);
  auto again = compute_streams_target(g, 3, 2000, {}, ready(4, true), 1);
  ASSERT_TRUE(std::holds_alternative<streams_target_result>(again));
  EXPECT_EQ(std::get<streams_target_result>(again).records.size(), 1u);
  // A member gone: the other takes every active task, no standby left to place.
  auto gone = compute_streams_target(g, 4, 3000, {std::nullopt, std::string("b")}, ready(4, true), 1);
  const auto& after = std::get<streams_target_result>(gone);
  EXPECT_EQ(after.target.size(), 1u);
  EXPECT_EQ(count(after.target.at("a").active), 4);
  EXPECT_EQ(count(after.target.at("a").standby), 0);
}

TEST(StreamsTarget, ATopologyNotReadyGivesEveryMemberNothing) {
  streams_group g("app");
  replay(g, metadata("a", "p1"));
  configured_topology missing;
  missing.error = topic_configuration_error{topology_status::missing_source_topics, "Source topics in are missing."};
  auto r = compute_streams_target(g, 2, 0, {}, missing, 0);
  const auto& out = std::get<streams_target_result>(r);
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_TRUE(out.target.at("a").empty());
  auto* rec = std::get_if<target_assignment_member_record>(&out.records[0]);
  ASSERT_NE(rec, nullptr);
  EXPECT_TRUE(rec->value->active_tasks.empty());
}

}  // namespace
}  // namespace hw::broker::group::streams
