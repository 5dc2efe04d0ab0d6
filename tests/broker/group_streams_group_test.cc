// A streams group rebuilt from its records as Kafka 4.3.1 replays them: a
// member's metadata and assignment, who holds each task, the state (Empty,
// NotReady until the topology's epoch is validated, Assigning, Reconciling,
// Stable), members and the group deleted only in Kafka's order.
#include <gtest/gtest.h>

#include "broker/group/streams/streams_group.h"

namespace hw::broker::group::streams {
namespace {

void replay(streams_group& g, const streams_group_record& r) {
  auto error = g.replay(r);
  ASSERT_FALSE(error) << *error;
}

group_metadata_record epoch(int32_t e, int32_t validated) {
  group_metadata_record r;
  r.key.group_id = "app";
  r.value.emplace();
  r.value->epoch = e;
  r.value->validated_topology_epoch = validated;
  return r;
}

member_metadata_record joined(const std::string& id, const std::string& process) {
  member_metadata_record r;
  r.key.group_id = "app";
  r.key.member_id = id;
  r.value.emplace();
  r.value->process_id = process;
  r.value->client_id = "c-" + id;
  r.value->topology_epoch = 1;
  r.value->user_endpoint.emplace();
  r.value->user_endpoint->host = "localhost";
  r.value->user_endpoint->port = 8080;
  return r;
}

current_assignment_record holding(const std::string& id, int32_t e, std::vector<int32_t> active, std::vector<int32_t> standby,
                                  int8_t state = 1) {
  current_assignment_record r;
  r.key.group_id = "app";
  r.key.member_id = id;
  r.value.emplace();
  r.value->member_epoch = e;
  r.value->previous_member_epoch = e - 1;
  r.value->state = state;
  if (!active.empty()) r.value->active_tasks.push_back({"0", active, std::nullopt, {}});
  if (!standby.empty()) r.value->standby_tasks.push_back({"0", standby, std::nullopt, {}});
  return r;
}

topology_record topology_of(int32_t epoch) {
  topology t;
  t.epoch = epoch;
  subtopology s;
  s.id = "0";
  s.source_topics = {"in"};
  t.subtopologies = {s};
  topology_record r;
  r.key.group_id = "app";
  r.value = to_value(t);
  return r;
}

target_assignment_epoch_record target_epoch(int32_t e) {
  target_assignment_epoch_record r;
  r.key.group_id = "app";
  r.value.emplace();
  r.value->assignment_epoch = e;
  return r;
}

TEST(StreamsGroup, ReplayedRecordsMakeTheGroupAndItsState) {
  streams_group g("app");
  EXPECT_EQ(g.state(), streams_group_state::empty);
  replay(g, epoch(1, 0));
  replay(g, joined("a", "p1"));
  // A member, no topology yet: not ready.
  EXPECT_EQ(g.state(), streams_group_state::not_ready);
  ASSERT_NE(g.member("a"), nullptr);
  EXPECT_EQ(g.member("a")->process_id, "p1");
  EXPECT_EQ(g.member("a")->metadata.client_id, "c-a");
  EXPECT_EQ(g.member("a")->metadata.endpoint, (std::optional<user_endpoint>(user_endpoint{"localhost", 8080})));
  replay(g, topology_of(1));
  EXPECT_EQ(g.state(), streams_group_state::not_ready);  // epoch 1 not validated yet
  replay(g, epoch(2, 1));
  EXPECT_EQ(g.state(), streams_group_state::assigning);  // group epoch 2, target at 1
  replay(g, target_epoch(2));
  replay(g, holding("a", 2, {0, 1}, {}));
  EXPECT_EQ(g.state(), streams_group_state::stable);
  // Active tasks without epochs in the record are held at the member's.
  EXPECT_EQ(g.member("a")->assigned.active, (task_epochs{{"0", {{0, 2}, {1, 2}}}}));
  EXPECT_EQ(g.active_process("0", 1), std::optional<std::string>("p1"));
  EXPECT_FALSE(g.active_process("0", 2).has_value());
  // A second member keeping standby copies, still reconciling.
  replay(g, joined("b", "p2"));
  replay(g, holding("b", 2, {}, {0, 1}, 3));
  EXPECT_EQ(g.state(), streams_group_state::reconciling);
  EXPECT_EQ(g.standby_processes("0", 0), (std::set<std::string>{"p2"}));
  EXPECT_EQ(to_string(g.state()), "Reconciling");
}

TEST(StreamsGroup, MembersAndTheGroupGoOnlyInKafkasOrder) {
  streams_group g("app");
  replay(g, epoch(1, 0));
  replay(g, joined("a", "p1"));
  replay(g, holding("a", 1, {0}, {}));
  // The member record's tombstone before its assignment's is refused.
  member_metadata_record gone;
  gone.key.group_id = "app";
  gone.key.member_id = "a";
  auto early = g.replay(gone);
  ASSERT_TRUE(early);
  EXPECT_EQ(*early, "Received a tombstone record to delete member a but did not receive "
                    "StreamsGroupCurrentMemberAssignmentValue tombstone.");
  // The group's tombstone while it has members is refused too.
  group_metadata_record dropped;
  dropped.key.group_id = "app";
  EXPECT_EQ(*g.replay(dropped), "Received a tombstone record to delete group app but the group still has 1 members.");
  // In order: assignment, member, target epoch, group.
  current_assignment_record released;
  released.key.group_id = "app";
  released.key.member_id = "a";
  replay(g, released);
  EXPECT_FALSE(g.active_process("0", 0).has_value());
  replay(g, gone);
  EXPECT_EQ(g.member("a"), nullptr);
  EXPECT_TRUE(g.replay(dropped).has_value());  // the target epoch is still there
  target_assignment_epoch_record no_target;
  no_target.key.group_id = "app";
  replay(g, no_target);
  replay(g, dropped);
  EXPECT_TRUE(g.deleted());
  EXPECT_EQ(g.state(), streams_group_state::dead);
}

}  // namespace
}  // namespace hw::broker::group::streams
