// A streams-group member reconciled towards its target, one heartbeat at a
// time, as Kafka 4.3.1's streams CurrentAssignmentBuilder does: tasks
// revoked before the epoch moves, tasks held elsewhere waited for, a
// standby not placed beside its own process's active task, an unknown state
// fenced.
#include <gtest/gtest.h>

#include <map>

#include "broker/group/streams/task_reconciliation.h"

namespace hw::broker::group::streams {
namespace {

using protocol::error_code;

// Who holds what now, as the group's task epochs say.
struct holders {
  std::map<std::pair<std::string, int32_t>, std::string> active;
  std::map<std::pair<std::string, int32_t>, std::set<std::string>> standby;
  task_owners owners() const {
    task_owners o;
    o.active_process = [this](const std::string& s, int32_t p) -> std::optional<std::string> {
      auto it = active.find({s, p});
      return it == active.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    o.standby_processes = [this](const std::string& s, int32_t p) {
      auto it = standby.find({s, p});
      return it == standby.end() ? std::set<std::string>{} : it->second;
    };
    o.warmup_processes = [](const std::string&, int32_t) { return std::set<std::string>{}; };
    return o;
  }
};

streams_member stable_member() {
  streams_member m;
  m.member_id = "m";
  m.process_id = "p1";
  m.epoch = 10;
  m.previous_epoch = 9;
  m.assigned.active = {{"0", {{0, 10}, {1, 8}}}};
  return m;
}

task_reconciliation_input target(std::optional<tasks_tuple> owned, const holders& h) {
  task_reconciliation_input in;
  in.target_epoch = 11;
  in.target.active = {{"0", {1, 2}}};
  in.owned = std::move(owned);
  in.owners = h.owners();
  return in;
}

TEST(StreamsReconciliation, TasksAreRevokedBeforeTheEpochMoves) {
  holders h;
  auto m = stable_member();
  // It still owns task 0_0, which its target drops: it must revoke it first.
  auto step = reconcile_tasks(m, target(tasks_tuple{{{"0", {0, 1}}}, {}, {}}, h));
  ASSERT_EQ(step.error, error_code::none);
  EXPECT_EQ(step.next.state, streams_member_state::unrevoked_tasks);
  EXPECT_EQ(step.next.epoch, 10);
  EXPECT_EQ(step.next.assigned.active, (task_epochs{{"0", {{1, 8}}}}));
  EXPECT_EQ(step.next.pending_revocation.active, (task_epochs{{"0", {{0, 10}}}}));
  // Without a word about what it owns, it stays there.
  EXPECT_EQ(reconcile_tasks(step.next, target(std::nullopt, h)).next, step.next);
  // Once it owns only 0_1, it moves to the target's epoch and gets 0_2 at it.
  auto moved = reconcile_tasks(step.next, target(tasks_tuple{{{"0", {1}}}, {}, {}}, h));
  EXPECT_EQ(moved.next.state, streams_member_state::stable);
  EXPECT_EQ(moved.next.epoch, 11);
  EXPECT_EQ(moved.next.previous_epoch, 10);
  EXPECT_EQ(moved.next.assigned.active, (task_epochs{{"0", {{1, 8}, {2, 11}}}}));
  EXPECT_TRUE(moved.next.pending_revocation.empty());
  // A member that said it had already let 0_0 go moves at once.
  auto direct = reconcile_tasks(m, target(tasks_tuple{{{"0", {1}}}, {}, {}}, h));
  EXPECT_EQ(direct.next.state, streams_member_state::stable);
  EXPECT_EQ(direct.next.epoch, 11);
}

TEST(StreamsReconciliation, ATaskHeldElsewhereIsWaitedFor) {
  holders h;
  h.active[{"0", 2}] = "p2";
  auto m = stable_member();
  auto step = reconcile_tasks(m, target(tasks_tuple{{{"0", {1}}}, {}, {}}, h));
  EXPECT_EQ(step.next.state, streams_member_state::unreleased_tasks);
  EXPECT_EQ(step.next.epoch, 11);
  EXPECT_EQ(step.next.assigned.active, (task_epochs{{"0", {{1, 8}}}}));
  // Released: it gets it.
  h.active.clear();
  auto got = reconcile_tasks(step.next, target(tasks_tuple{{{"0", {1}}}, {}, {}}, h));
  EXPECT_EQ(got.next.state, streams_member_state::stable);
  EXPECT_EQ(got.next.assigned.active, (task_epochs{{"0", {{1, 8}, {2, 11}}}}));
  EXPECT_EQ(got.next.epoch, 11);
}

TEST(StreamsReconciliation, AStandbyWaitsWhileItsProcessHoldsTheTask) {
  holders h;
  h.active[{"0", 5}] = "p1";  // another member of the same process still runs it
  streams_member m;
  m.member_id = "m";
  m.process_id = "p1";
  m.epoch = 3;
  task_reconciliation_input in;
  in.target_epoch = 4;
  in.target.standby = {{"0", {5, 6}}};
  in.owned = tasks_tuple{};
  in.owners = h.owners();
  auto step = reconcile_tasks(m, in);
  EXPECT_EQ(step.next.state, streams_member_state::unreleased_tasks);
  EXPECT_EQ(step.next.assigned.standby, (task_set{{"0", {6}}}));
  // An active task elsewhere is no obstacle for a standby.
  h.active[{"0", 5}] = "p2";
  step = reconcile_tasks(m, in);
  EXPECT_EQ(step.next.state, streams_member_state::stable);
  EXPECT_EQ(step.next.assigned.standby, (task_set{{"0", {5, 6}}}));
}

TEST(StreamsReconciliation, AnUnknownStateIsFencedUnlessTheMemberOwnsNothing) {
  holders h;
  auto m = stable_member();
  m.state = streams_member_state_from_value(42);
  EXPECT_EQ(m.state, streams_member_state::unknown);
  auto fenced = reconcile_tasks(m, target(tasks_tuple{{{"0", {1}}}, {}, {}}, h));
  EXPECT_EQ(fenced.error, error_code::fenced_member_epoch);
  EXPECT_EQ(fenced.error_message,
            "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.");
  EXPECT_EQ(reconcile_tasks(m, target(std::nullopt, h)).error, error_code::fenced_member_epoch);
  auto fresh = reconcile_tasks(m, target(tasks_tuple{}, h));
  EXPECT_EQ(fresh.error, error_code::none);
  EXPECT_EQ(fresh.next.epoch, 11);
}

}  // namespace
}  // namespace hw::broker::group::streams
