// StreamsGroupHeartbeat through the shard's streams groups, as Kafka 4.3.1's
// coordinator answers it: the first member's topology initialises the
// group, tasks are assigned and reconciled (revoked before they move), the
// topology's problems come back as statuses (with the internal topics to
// create), a member behind the topology is told it is stale, epochs are
// checked, members leave or are fenced when their session ends.
#include <gtest/gtest.h>

#include "broker/group/streams/streams_group_manager.h"
#include "broker/group/heartbeat_interval.h"
#include "tests/broker/consumer_group_support.h"

namespace hw::broker::group::streams {
namespace {

using protocol::error_code;
using request = protocol::msg::streams_group_heartbeat_request;
using response = protocol::msg::streams_group_heartbeat_response;

request join(const std::string& member, const std::string& process, int32_t topology_epoch = 1,
             const std::string& source = "in") {
  request r;
  r.group_id = "app";
  r.member_id = member;
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 30000;
  r.process_id = process;
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  r.topology.emplace();
  r.topology->epoch = topology_epoch;
  auto& s = r.topology->subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {source};
  return r;
}

request beat(const std::string& member, int32_t epoch, const std::set<int32_t>& owned) {
  request r;
  r.group_id = "app";
  r.member_id = member;
  r.member_epoch = epoch;
  r.active_tasks.emplace();
  if (!owned.empty()) r.active_tasks->push_back({"0", {owned.begin(), owned.end()}, {}});
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

std::set<int32_t> active_of(const response& r) {
  std::set<int32_t> out;
  if (r.active_tasks)
    for (const auto& t : *r.active_tasks) out.insert(t.partitions.begin(), t.partitions.end());
  return out;
}

struct harness {
  streams_group_manager manager{streams_group_options{45000, 5000, 100, 0, 0, 0}};
  hw::testing::topic_map_image topics;
  int64_t now = 1000;
  harness() { topics.add("in", 1, 4); }
  streams_heartbeat_outcome send(const request& r) { return manager.heartbeat(r, "client", "/127.0.0.1", topics, now); }
};

TEST(StreamsManager, MembersJoinGetTasksAndHandThemOverBeforeTheyMove) {
  harness h;
  auto a = h.send(join("a", "p1"));
  ASSERT_EQ(a.response.error_code, 0) << a.response.error_message.value_or("");
  EXPECT_EQ(a.response.member_epoch, 2);
  EXPECT_EQ(active_of(a.response), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(a.response.status->empty());
  EXPECT_TRUE(a.to_create.empty());
  EXPECT_EQ(h.manager.group("app")->state(), streams_group_state::stable);
  // member metadata, topology, group, target of a, target epoch, a's assignment
  EXPECT_EQ(a.records.size(), 6u);

  auto b = h.send(join("b", "p2"));
  ASSERT_EQ(b.response.error_code, 0);
  EXPECT_EQ(b.response.member_epoch, 3);
  EXPECT_TRUE(active_of(b.response).empty());  // its tasks are still a's
  // Waiting for them, b is asked back sooner than the interval.
  EXPECT_EQ(b.response.heartbeat_interval_ms, k_unreleased_heartbeat_interval_ms);
  // a revokes what its new target drops, then moves on.
  auto a2 = h.send(beat("a", 2, {0, 1, 2, 3}));
  ASSERT_EQ(a2.response.error_code, 0);
  EXPECT_EQ(a2.response.member_epoch, 2);
  EXPECT_EQ(a2.response.heartbeat_interval_ms, 5000);
  const auto kept = active_of(a2.response);
  EXPECT_EQ(kept.size(), 2u);
  auto a3 = h.send(beat("a", 2, kept));
  EXPECT_EQ(a3.response.member_epoch, 3);
  auto b2 = h.send(beat("b", 3, {}));
  EXPECT_EQ(active_of(b2.response).size(), 2u);
  EXPECT_EQ(b2.response.heartbeat_interval_ms, 5000);
  for (int32_t t : active_of(b2.response)) EXPECT_FALSE(kept.count(t));
  h.send(beat("a", 3, kept));
  h.send(beat("b", 3, active_of(b2.response)));
  EXPECT_EQ(h.manager.group("app")->state(), streams_group_state::stable);
}

// A stable member's heartbeat changes nothing: no records, nothing kept for
// a rollback, the group's epochs and members as they were.
TEST(StreamsManager, AHeartbeatThatChangesNothingWritesNothing) {
  harness h;
  auto a = h.send(join("a", "p1"));
  ASSERT_EQ(a.response.error_code, 0);
  h.send(beat("a", 2, active_of(a.response)));
  const streams_group before = *h.manager.group("app");
  auto again = h.send(beat("a", 2, active_of(a.response)));
  ASSERT_EQ(again.response.error_code, 0) << again.response.error_message.value_or("");
  EXPECT_EQ(again.response.member_epoch, 2);
  EXPECT_TRUE(again.records.empty());
  EXPECT_FALSE(again.before.has_value());
  const streams_group& now = *h.manager.group("app");
  EXPECT_EQ(now.group_epoch(), before.group_epoch());
  EXPECT_EQ(now.assignment_epoch(), before.assignment_epoch());
  EXPECT_EQ(now.members().size(), 1u);
  EXPECT_TRUE(now.configured().has_value());
  // A second member's join changes it, and keeps the group it changed.
  auto b = h.send(join("b", "p2"));
  ASSERT_EQ(b.response.error_code, 0);
  ASSERT_TRUE(b.before.has_value());
  EXPECT_EQ(b.before->group_epoch(), before.group_epoch());
  EXPECT_EQ(b.before->members().size(), 1u);
}

TEST(StreamsManager, TopologyProblemsAreStatuses) {
  harness h;
  auto missing = h.send(join("a", "p1", 1, "absent"));
  ASSERT_EQ(missing.response.error_code, 0);
  ASSERT_EQ(missing.response.status->size(), 1u);
  EXPECT_EQ(missing.response.status->at(0).status_code, 1);
  EXPECT_EQ(missing.response.status->at(0).status_detail, "Source topics absent are missing.");
  EXPECT_TRUE(active_of(missing.response).empty());
  EXPECT_EQ(h.manager.group("app")->state(), streams_group_state::not_ready);

  harness s;
  auto r = join("a", "p1");
  r.topology->subtopologies[0].state_changelog_topics.push_back({"app-store-changelog", 0, 0, {}, {}});
  auto out = s.send(r);
  ASSERT_EQ(out.response.status->size(), 1u);
  EXPECT_EQ(out.response.status->at(0).status_code, 3);
  EXPECT_EQ(out.response.status->at(0).status_detail, "Internal topics are missing: app-store-changelog");
  ASSERT_EQ(out.to_create.size(), 1u);
  EXPECT_EQ(out.to_create[0].partitions, 4);
  // Once the broker made it, the next heartbeat gets the tasks.
  s.topics.add("app-store-changelog", 2, 4);
  auto ready = s.send(beat("a", out.response.member_epoch, {}));
  EXPECT_TRUE(ready.response.status->empty());
  EXPECT_EQ(active_of(ready.response).size(), 4u);
}

TEST(StreamsManager, TheFirstTopologyStandsAndOlderMembersAreStale) {
  harness h;
  ASSERT_EQ(h.send(join("a", "p1", 2)).response.error_code, 0);
  auto changed = join("b", "p2", 3, "other");
  auto refused = h.send(changed);
  EXPECT_EQ(refused.response.error_code, static_cast<int16_t>(error_code::invalid_request));
  EXPECT_EQ(refused.response.error_message, std::optional<std::string>("Topology updates are not supported yet."));
  auto old = h.send(join("c", "p3", 1, "other"));
  ASSERT_EQ(old.response.error_code, 0);
  ASSERT_FALSE(old.response.status->empty());
  EXPECT_EQ(old.response.status->at(0).status_code, 0);
  EXPECT_EQ(old.response.status->at(0).status_detail, "The member's topology epoch 1 is behind the group's topology epoch 2.");
}

TEST(StreamsManager, EpochsAreCheckedAndMembersLeaveOrExpire) {
  harness h;
  auto a = h.send(join("a", "p1"));
  auto ahead = h.send(beat("a", 9, {}));
  EXPECT_EQ(ahead.response.error_code, static_cast<int16_t>(error_code::fenced_member_epoch));
  EXPECT_EQ(ahead.response.error_message,
            std::optional<std::string>("The streams group member has a greater member epoch (9) than the one known by "
                                       "the group coordinator (2). The member must abandon all its partitions and "
                                       "rejoin."));
  EXPECT_EQ(h.send(beat("x", 2, {})).response.error_code, static_cast<int16_t>(error_code::unknown_member_id));
  auto other = beat("a", 2, {});
  other.group_id = "nope";
  EXPECT_EQ(h.send(other).response.error_message, std::optional<std::string>("Streams group nope not found."));
  h.send(join("b", "p2"));
  // b leaves: fenced, the group epoch bumped.
  auto left = h.send(beat("b", -1, {}));
  ASSERT_EQ(left.response.error_code, 0);
  EXPECT_EQ(left.response.member_epoch, -1);
  EXPECT_EQ(h.manager.group("app")->member("b"), nullptr);
  EXPECT_EQ(h.manager.group("app")->group_epoch(), 4);
  // a stops heartbeating: its session ends.
  EXPECT_EQ(h.manager.next_deadline_ms(), h.now + 45000);
  EXPECT_FALSE(h.manager.expire_sessions(h.now + 45000).empty());
  EXPECT_TRUE(h.manager.group("app")->members().empty());
  EXPECT_EQ(h.manager.group("app")->state(), streams_group_state::empty);
  (void)a;
}

// A group that had no members waits group.streams.initial.rebalance.delay.ms
// before its first target, whoever joins meanwhile; then the target is
// computed once for all of them (by the timer, or by a heartbeat after it).
TEST(StreamsManager, TheFirstTargetWaitsForTheInitialRebalanceDelay) {
  harness h;
  h.manager = streams_group_manager{streams_group_options{45000, 5000, 100, 0, 0, 3000}};
  auto a = h.send(join("a", "p1"));
  ASSERT_EQ(a.response.error_code, 0);
  EXPECT_TRUE(active_of(a.response).empty());
  ASSERT_EQ(a.response.status->size(), 1u);
  EXPECT_EQ(a.response.status->at(0).status_code, 5);  // ASSIGNMENT_DELAYED
  EXPECT_EQ(a.response.status->at(0).status_detail, "Assignment delayed due to the configured initial rebalance delay.");
  EXPECT_EQ(h.manager.next_deadline_ms(), std::optional<int64_t>(h.now + 3000));
  h.now += 1000;
  auto b = h.send(join("b", "p2"));
  EXPECT_EQ(b.response.status->at(0).status_code, 5);
  EXPECT_TRUE(h.manager.delayed_targets(h.now).empty());
  h.now += 2000;
  auto due = h.manager.delayed_targets(h.now);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].group_id, "app");
  EXPECT_EQ(due[0].before.assignment_epoch(), 1);
  EXPECT_EQ(h.manager.group("app")->assignment_epoch(), h.manager.group("app")->group_epoch());
  // Both were targeted at once: two tasks each.
  auto a2 = h.send(beat("a", a.response.member_epoch, {}));
  auto b2 = h.send(beat("b", b.response.member_epoch, {}));
  EXPECT_EQ(active_of(a2.response).size() + active_of(b2.response).size(), 4u);
  EXPECT_EQ(active_of(a2.response).size(), 2u);
  EXPECT_TRUE(a2.response.status->empty());
  // A member joining a group with members does not wait again.
  auto c = h.send(join("c", "p3"));
  for (const auto& st : *c.response.status) EXPECT_NE(st.status_code, 5);
}

// A member's fatal error (ShutdownApplication) is told to every member, its
// own answer included, until the group has no members.
TEST(StreamsManager, AShutdownRequestIsToldToEveryMemberUntilTheGroupEmpties) {
  harness h;
  auto a = h.send(join("a", "p1"));
  auto b = h.send(join("b", "p2"));
  auto stop = beat("a", a.response.member_epoch, active_of(a.response));
  stop.shutdown_application = true;
  auto told = h.send(stop);
  ASSERT_EQ(told.response.error_code, 0);
  auto shutdown_of = [](const response& r) -> std::optional<std::string> {
    for (const auto& st : *r.status)
      if (st.status_code == 4) return st.status_detail;
    return std::nullopt;
  };
  const std::string detail =
      "Streams group member a encountered a fatal error and requested a shutdown for the entire application.";
  EXPECT_EQ(shutdown_of(told.response), detail);
  EXPECT_EQ(shutdown_of(h.send(beat("b", b.response.member_epoch, {})).response), detail);
  // Once everyone left, a new member of the group is not told.
  for (const char* m : {"a", "b"}) {
    request leave;
    leave.group_id = "app";
    leave.member_id = m;
    leave.member_epoch = -1;
    ASSERT_EQ(h.send(leave).response.error_code, 0);
  }
  EXPECT_FALSE(shutdown_of(h.send(join("c", "p3")).response));
}

// Members with a user endpoint: the partitions behind the tasks each holds,
// sent when a member's endpoint information epoch is behind the group's.
TEST(StreamsManager, EndpointsMapToThePartitionsTheirTasksRead) {
  harness h;
  auto with_endpoint = [](request r, uint16_t port) {
    r.user_endpoint = request::endpoint{"host-" + std::to_string(port), port, {}};
    return r;
  };
  auto a = h.send(with_endpoint(join("a", "p1"), 7001));
  ASSERT_EQ(a.response.error_code, 0);
  EXPECT_EQ(a.response.endpoint_information_epoch, 0);  // the group was made by this heartbeat
  auto b = h.send(with_endpoint(join("b", "p2"), 7002));
  ASSERT_EQ(b.response.error_code, 0);
  ASSERT_TRUE(b.response.partitions_by_user_endpoint);
  const int32_t epoch = b.response.endpoint_information_epoch;
  EXPECT_GT(epoch, 0);
  // a (still holding everything) first, b (holding nothing yet) last.
  const auto& parts = *b.response.partitions_by_user_endpoint;
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].user_endpoint.port, 7001);
  ASSERT_EQ(parts[0].active_partitions.size(), 1u);
  EXPECT_EQ(parts[0].active_partitions[0].topic, "in");
  EXPECT_EQ(parts[0].active_partitions[0].partitions, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parts[1].user_endpoint.port, 7002);
  EXPECT_TRUE(parts[1].active_partitions.empty());
  // A member that is up to date is not sent them again.
  auto current = beat("b", b.response.member_epoch, {});
  current.endpoint_information_epoch = epoch;
  EXPECT_FALSE(h.send(current).response.partitions_by_user_endpoint);
}

// streams.* group configs override the broker's group.streams.* ones.
TEST(StreamsManager, GroupConfigsOverrideTheBrokersSettings) {
  harness h;
  h.topics.set_group_config("app", "streams.heartbeat.interval.ms", "2500");
  h.topics.set_group_config("app", "streams.session.timeout.ms", "50000");
  h.manager.set_config_source(&h.topics);
  auto a = h.send(join("a", "p1"));
  ASSERT_EQ(a.response.error_code, 0);
  EXPECT_EQ(a.response.heartbeat_interval_ms, 2500);
  EXPECT_EQ(h.manager.next_deadline_ms(), std::optional<int64_t>(h.now + 50000));
  h.topics.set_group_config("app", "streams.num.standby.replicas", "1");
  auto again = h.send(beat("a", a.response.member_epoch, active_of(a.response)));
  // Other assignment configs bump the group epoch for a new target.
  EXPECT_EQ(again.response.member_epoch, a.response.member_epoch + 1);
  EXPECT_EQ(h.manager.group("app")->last_assignment_configs().at("num.standby.replicas"), "1");
}

// A member asked to give tasks up has its rebalance timeout to do it: one
// that keeps heartbeating but never revokes is fenced when it ends.
TEST(StreamsManager, AMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced) {
  harness h;
  auto a = h.send(join("a", "p1"));
  ASSERT_EQ(active_of(a.response).size(), 4u);
  h.send(join("b", "p2"));
  auto asked = h.send(beat("a", a.response.member_epoch, {0, 1, 2, 3}));
  ASSERT_EQ(asked.response.error_code, 0);
  ASSERT_EQ(h.manager.group("app")->member("a")->state, streams_member_state::unrevoked_tasks);
  const int64_t deadline = h.now + 30000;  // join()'s rebalance timeout
  EXPECT_EQ(h.manager.next_deadline_ms(), std::optional<int64_t>(deadline));
  h.now += 20000;
  ASSERT_EQ(h.send(beat("a", a.response.member_epoch, {0, 1, 2, 3})).response.error_code, 0);  // still holding on
  EXPECT_TRUE(h.manager.expire_sessions(deadline - 1).empty());
  EXPECT_FALSE(h.manager.expire_sessions(deadline).empty());
  EXPECT_EQ(h.manager.group("app")->member("a"), nullptr);
  ASSERT_NE(h.manager.group("app")->member("b"), nullptr);

  // One that revokes in time is not.
  harness k;
  auto c = k.send(join("c", "p1"));
  k.send(join("d", "p2"));
  auto told = k.send(beat("c", c.response.member_epoch, {0, 1, 2, 3}));
  k.send(beat("c", c.response.member_epoch, active_of(told.response)));
  EXPECT_NE(k.manager.group("app")->member("c")->state, streams_member_state::unrevoked_tasks);
  EXPECT_TRUE(k.manager.expire_sessions(k.now + 30000).empty());
  EXPECT_NE(k.manager.group("app")->member("c"), nullptr);
}

// A member whose answer was lost (its coordinator died after writing the
// member's new epoch and tasks, before answering) heartbeats at its previous
// epoch: it is told its tasks again, not only its epoch.
TEST(StreamsManager, AMemberAtItsPreviousEpochIsToldItsTasksAgain) {
  harness h;
  auto a = h.send(join("a", "p1"));
  auto b = h.send(join("b", "p2"));
  auto a2 = h.send(beat("a", a.response.member_epoch, {0, 1, 2, 3}));
  const auto kept = active_of(a2.response);
  ASSERT_EQ(kept.size(), 2u);
  auto a3 = h.send(beat("a", a.response.member_epoch, kept));  // moves a to b's epoch
  ASSERT_EQ(a3.response.member_epoch, b.response.member_epoch);
  // b is given its tasks at its epoch; say that answer is lost.
  auto b2 = h.send(beat("b", b.response.member_epoch, {}));
  ASSERT_EQ(active_of(b2.response).size(), 2u);
  // Then a leaves: b is given everything at a new epoch, and that answer is lost too.
  ASSERT_EQ(h.send(beat("a", -1, {})).response.error_code, 0);
  auto b3 = h.send(beat("b", b2.response.member_epoch, active_of(b2.response)));
  ASSERT_GT(b3.response.member_epoch, b2.response.member_epoch);
  ASSERT_EQ(active_of(b3.response).size(), 4u);
  auto again = h.send(beat("b", b2.response.member_epoch, active_of(b2.response)));
  ASSERT_EQ(again.response.error_code, 0) << again.response.error_message.value_or("");
  EXPECT_EQ(again.response.member_epoch, b3.response.member_epoch);
  EXPECT_EQ(active_of(again.response), (std::set<int32_t>{0, 1, 2, 3}));
  // At its epoch, with nothing new, it is told nothing.
  EXPECT_FALSE(h.send(beat("b", b3.response.member_epoch, {0, 1, 2, 3})).response.active_tasks.has_value());
}

}  // namespace
}  // namespace hw::broker::group::streams
