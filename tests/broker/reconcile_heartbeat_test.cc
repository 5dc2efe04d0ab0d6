// What a ConsumerGroupHeartbeat does to a member around its reconciliation:
// the epoch check (fencing), the fields it sets, when the answer carries the
// assignment, a member rejoining with epoch 0, a static member leaving and
// coming back, and a partition handed from one member to another.
#include <gtest/gtest.h>

#include "tests/broker/reconcile_test_support.h"

namespace hw::broker::group::consumer {
namespace {

using namespace testing;
using protocol::error_code;
namespace msg = protocol::msg;

const auto t1 = topic(1);
const auto t2 = topic(2);

consumer_member at_epoch_five() {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(5), epoch(4), member_state::stable, at(epoch(5), tps({{t1, {0, 1}}})));
  return m;
}

TEST(ReconcileHeartbeat, EpochZeroAndTheMembersOwnEpochAreAccepted) {
  auto m = at_epoch_five();
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(0), std::nullopt).error, error_code::none);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(5), std::nullopt).error, error_code::none);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(5), tps({{t2, {9}}})).error, error_code::none);
}

TEST(ReconcileHeartbeat, EpochAheadOfTheCoordinatorIsFenced) {
  auto c = check_heartbeat_epoch(at_epoch_five(), epoch(6), tps({}));
  EXPECT_EQ(c.error, error_code::fenced_member_epoch);
  EXPECT_EQ(c.message,
            "The consumer group member has a greater member epoch (6) than the one known by the group coordinator "
            "(5). The member must abandon all its partitions and rejoin.");
}

TEST(ReconcileHeartbeat, PreviousEpochIsAcceptedWhileTheOwnedPartitionsAreStillAssigned) {
  auto m = at_epoch_five();
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), tps({{t1, {0}}})).error, error_code::none);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), tps({})).error, error_code::none);
  // Not listed, one not assigned, or a listed topic it was never given.
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), std::nullopt).error, error_code::fenced_member_epoch);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), tps({{t1, {0, 2}}})).error, error_code::fenced_member_epoch);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), tps({{t2, {}}})).error, error_code::fenced_member_epoch);
  // Older than the previous epoch.
  auto c = check_heartbeat_epoch(m, epoch(3), tps({{t1, {0}}}));
  EXPECT_EQ(c.error, error_code::fenced_member_epoch);
  EXPECT_EQ(c.message,
            "The consumer group member has a smaller member epoch (3) than the one known by the group coordinator "
            "(5). The member must abandon all its partitions and rejoin.");
}

TEST(ReconcileHeartbeat, AfterARevocationRequestThePreviousEpochIsTheCurrentOne) {
  // Asked to revoke, the member stays at 5 and 5 becomes its previous epoch:
  // a heartbeat still at 4 is then fenced.
  auto m = at_epoch_five();
  auto r = reconcile_with(m, epoch(6), tps({{t1, {0}}}), tps({{t1, {0, 1}}}), nobody());
  ASSERT_EQ(r.next.state, member_state::unrevoked_partitions);
  m.current = r.next;
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(4), tps({{t1, {0}}})).error, error_code::fenced_member_epoch);
  EXPECT_EQ(check_heartbeat_epoch(m, epoch(5), tps({{t1, {0, 1}}})).error, error_code::none);
}

TEST(ReconcileHeartbeat, MemberThatRejoinsWithEpochZeroGetsItsAssignmentAgain) {
  group g;
  g.target_epoch = epoch(3);
  g.join("a", {"t1"});
  g.targets["a"] = tps({{t1, {0, 1}}});
  ASSERT_EQ(g.heartbeat("a", tps({})).next.state, member_state::stable);
  const auto before = g.members.at("a");

  // The client lost everything (say, fenced) and rejoins with epoch 0.
  msg::consumer_group_heartbeat_request request;
  request.member_id = "a";
  request.member_epoch = 0;
  request.topic_partitions.emplace();
  EXPECT_EQ(check_heartbeat_epoch(before, epoch(request.member_epoch), owned_partitions(request)).error,
            error_code::none);
  auto r = g.heartbeat("a", owned_partitions(request));
  EXPECT_EQ(r.next, before.current);  // already reconciled: nothing moves
  EXPECT_TRUE(answer_carries_assignment(request, before, g.members.at("a")));
  auto answer = heartbeat_assignment(g.members.at("a"));
  ASSERT_EQ(answer.topic_partitions.size(), 1u);
  EXPECT_EQ(answer.topic_partitions[0].topic_id, t1);
  EXPECT_EQ(answer.topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
}

TEST(ReconcileHeartbeat, MemberThatRejoinsWhileRevokingMovesOnAtOnce) {
  group g;
  g.target_epoch = epoch(1);
  g.join("a", {"t1"});
  g.targets["a"] = tps({{t1, {0, 1}}});
  g.heartbeat("a", tps({}));
  g.target_epoch = epoch(2);
  g.targets["a"] = tps({{t1, {0}}});
  ASSERT_EQ(g.heartbeat("a", tps({{t1, {0, 1}}})).next.state, member_state::unrevoked_partitions);
  // Rejoining, it owns nothing: the revocation is done.
  auto r = g.heartbeat("a", tps({}));
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::stable, at(epoch(1), tps({{t1, {0}}}))));
}

TEST(ReconcileHeartbeat, PartitionMovesFromOneMemberToAnotherOnlyOnceReleased) {
  group g;
  g.target_epoch = epoch(1);
  g.join("a", {"t1"});
  g.targets["a"] = tps({{t1, {0, 1}}});
  g.heartbeat("a", tps({}));

  // b joins; the new target gives it t1-1.
  g.join("b", {"t1"});
  g.target_epoch = epoch(2);
  g.targets["a"] = tps({{t1, {0}}});
  g.targets["b"] = tps({{t1, {1}}});
  auto rb = g.heartbeat("b", tps({}));
  EXPECT_EQ(rb.next, assignment(epoch(2), epoch(0), member_state::unreleased_partitions, {}));
  auto ra = g.heartbeat("a", tps({{t1, {0, 1}}}));
  EXPECT_EQ(ra.next.state, member_state::unrevoked_partitions);
  EXPECT_EQ(g.heartbeat("b", tps({})).next.state, member_state::unreleased_partitions);

  ra = g.heartbeat("a", tps({{t1, {0}}}));
  EXPECT_EQ(ra.next, assignment(epoch(2), epoch(1), member_state::stable, at(epoch(1), tps({{t1, {0}}}))));
  EXPECT_EQ(g.epochs.owner_epoch(t1, 1), std::nullopt);
  rb = g.heartbeat("b", tps({}));
  EXPECT_EQ(rb.next, assignment(epoch(2), epoch(2), member_state::stable, at(epoch(2), tps({{t1, {1}}}))));
  EXPECT_EQ(g.epochs.owner_epoch(t1, 1), epoch(2));
}

TEST(ReconcileHeartbeat, StaticMemberLeavesAndComesBackUnderANewMemberId) {
  group g;
  g.target_epoch = epoch(3);
  auto& m = g.join("old", {"t1"});
  m.subscription.instance_id = "instance-1";
  g.targets["old"] = tps({{t1, {0, 1}}});
  g.heartbeat("old", tps({}));
  ASSERT_TRUE(g.members.at("old").is_static());

  // It leaves with epoch -2: it keeps its partitions at assignment epoch 0,
  // held at -2 so that no one else is given them meanwhile.
  auto left = static_member_left(g.members.at("old"));
  EXPECT_EQ(left.current, assignment(leave_group_static_epoch, epoch(0), member_state::stable,
                                     at(epoch(0), tps({{t1, {0, 1}}}))));
  g.replace(left);
  EXPECT_EQ(g.epochs.owner_epoch(t1, 0), leave_group_static_epoch);
  auto other = member_with("other", {"t1"});
  EXPECT_EQ(reconcile_with(other, epoch(3), tps({{t1, {0}}}), tps({}), owner_from(g.epochs)).next.state,
            member_state::unreleased_partitions);

  // The client comes back with the instance id and a new member id.
  auto back = static_member_replacement(left, "new");
  EXPECT_EQ(back.member_id, "new");
  EXPECT_EQ(back.subscription, left.subscription);
  EXPECT_EQ(back.current, assignment(epoch(0), epoch(0), member_state::stable, at(epoch(0), tps({{t1, {0, 1}}}))));
  g.leave("old");
  g.members.emplace("new", back);
  ASSERT_FALSE(g.epochs.add_member(back.current).has_value());
  g.targets["new"] = tps({{t1, {0, 1}}});
  EXPECT_EQ(check_heartbeat_epoch(back, epoch(0), tps({})).error, error_code::none);
  auto r = g.heartbeat("new", tps({}));
  // Back at the target epoch with its partitions, still at assignment epoch 0.
  EXPECT_EQ(r.next, assignment(epoch(3), epoch(0), member_state::stable, at(epoch(0), tps({{t1, {0, 1}}}))));
  EXPECT_EQ(g.epochs.owner_epoch(t1, 1), epoch(3));
}

TEST(ReconcileHeartbeat, FieldsTheRequestLeavesNullKeepTheirValue) {
  auto m = member_with("a", {"t1"});
  m.subscription.rack_id = "r1";
  m.subscription.rebalance_timeout_ms = 30000;
  m.subscription.server_assignor = "uniform";
  m.subscription.subscribed_topic_regex = "x.*";

  msg::consumer_group_heartbeat_request request;
  request.member_id = "a";
  request.member_epoch = 5;
  auto out = with_heartbeat(m, request, "client-1", "/10.0.0.1");
  auto expected = m.subscription;
  expected.client_id = "client-1";
  expected.client_host = "/10.0.0.1";
  EXPECT_EQ(out.subscription, expected);
  EXPECT_EQ(out.current, m.current);

  request.instance_id = "i";
  request.rack_id = "r2";
  request.rebalance_timeout_ms = 45000;
  request.server_assignor = "range";
  request.subscribed_topic_names = std::vector<std::string>{"t2", "t1", "t2"};
  request.subscribed_topic_regex = "";
  out = with_heartbeat(m, request, "client-1", "/10.0.0.1");
  EXPECT_EQ(out.subscription.instance_id, "i");
  EXPECT_EQ(out.subscription.rack_id, "r2");
  EXPECT_EQ(out.subscription.rebalance_timeout_ms, 45000);
  EXPECT_EQ(out.subscription.server_assignor, "range");
  EXPECT_EQ(out.subscription.subscribed_topic_names, (std::set<std::string>{"t1", "t2"}));
  EXPECT_EQ(out.subscription.subscribed_topic_regex, "");  // an empty regex clears it
}

TEST(ReconcileHeartbeat, OwnedPartitionsAreNullUnlessListed) {
  msg::consumer_group_heartbeat_request request;
  EXPECT_EQ(owned_partitions(request), std::nullopt);
  request.topic_partitions.emplace();
  EXPECT_EQ(owned_partitions(request), tps({}));
  msg::consumer_group_heartbeat_request::topic_partitions_data a, b;
  a.topic_id = t1;
  a.partitions = {2, 0};
  b.topic_id = t1;
  b.partitions = {1};
  request.topic_partitions->push_back(a);
  request.topic_partitions->push_back(b);
  EXPECT_EQ(owned_partitions(request), tps({{t1, {0, 1, 2}}}));
}

TEST(ReconcileHeartbeat, AnswerCarriesTheAssignmentOnJoinFullRequestOrChange) {
  auto before = at_epoch_five();
  auto after = before;
  msg::consumer_group_heartbeat_request request;
  request.member_epoch = 5;
  EXPECT_FALSE(answer_carries_assignment(request, before, after));

  // A full request: rebalance timeout, a subscription, owned partitions.
  request.rebalance_timeout_ms = 30000;
  request.subscribed_topic_names = std::vector<std::string>{"t1"};
  EXPECT_FALSE(answer_carries_assignment(request, before, after));
  request.topic_partitions.emplace();
  EXPECT_TRUE(answer_carries_assignment(request, before, after));
  request.subscribed_topic_names.reset();
  request.subscribed_topic_regex = "t.*";
  EXPECT_TRUE(answer_carries_assignment(request, before, after));

  msg::consumer_group_heartbeat_request plain;
  plain.member_epoch = 5;
  // A changed assignment epoch alone counts as a change.
  after.current.assigned[t1][0] = epoch(6);
  EXPECT_TRUE(answer_carries_assignment(plain, before, after));
  // The epoch or state moving without the assigned partitions does not.
  after = before;
  after.current.epoch = epoch(6);
  after.current.pending_revocation = at(epoch(5), tps({{t2, {0}}}));
  EXPECT_FALSE(answer_carries_assignment(plain, before, after));
}

TEST(ReconcileHeartbeat, AssignmentInTheAnswerLeavesOutPartitionsPendingRevocation) {
  auto m = member_with("a", {"t1", "t2"});
  m.current = assignment(epoch(2), epoch(2), member_state::unrevoked_partitions, at(epoch(2), tps({{t1, {3, 1}}})),
                         at(epoch(2), tps({{t2, {0}}})));
  auto answer = heartbeat_assignment(m);
  ASSERT_EQ(answer.topic_partitions.size(), 1u);
  EXPECT_EQ(answer.topic_partitions[0].topic_id, t1);
  EXPECT_EQ(answer.topic_partitions[0].partitions, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(partitions_of(m.current.pending_revocation), tps({{t2, {0}}}));
  EXPECT_EQ(epoch_of(m.current.assigned, t1, 3), epoch(2));
  EXPECT_EQ(epoch_of(m.current.assigned, t1, 2), std::nullopt);
}

}  // namespace
}  // namespace hw::broker::group::consumer
