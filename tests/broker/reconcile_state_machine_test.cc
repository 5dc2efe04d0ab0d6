// The reconciliation of one consumer-group member (KIP-848), transition by
// transition: the member is given only partitions no one else holds, gives
// partitions up before it moves to a new epoch, and waits for partitions
// still held elsewhere.
#include <gtest/gtest.h>

#include "tests/broker/reconcile_test_support.h"

namespace hw::broker::group::consumer {
namespace {

using namespace testing;
using protocol::error_code;

const auto t1 = topic(1);
const auto t2 = topic(2);

TEST(ReconcileStateMachine, NewMemberGetsItsTargetAtOnceWhenNothingIsHeldElsewhere) {
  auto m = member_with("a", {"t1", "t2"});
  auto r = reconcile_with(m, epoch(1), tps({{t1, {0, 1, 2}}, {t2, {0}}}), tps({}), nobody());
  EXPECT_EQ(r.error, error_code::none);
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0, 1, 2}}, {t2, {0}}}))));
}

TEST(ReconcileStateMachine, NewMemberThatDoesNotListOwnedPartitionsHasNothingToRevoke) {
  auto m = member_with("a", {"t1"});
  auto r = reconcile_with(m, epoch(4), tps({{t1, {3}}}), std::nullopt, nobody());
  EXPECT_EQ(r.next, assignment(epoch(4), epoch(0), member_state::stable, at(epoch(4), tps({{t1, {3}}}))));
}

TEST(ReconcileStateMachine, NewMemberWithAnEmptyTargetBecomesStableAtTheTargetEpoch) {
  auto m = member_with("a", {"t1"});
  auto r = reconcile_with(m, epoch(2), {}, tps({}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(0), member_state::stable, {}));
}

TEST(ReconcileStateMachine, ReconciledMemberStaysAsItIs) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(3), epoch(2), member_state::stable, at(epoch(2), tps({{t1, {0}}})));
  EXPECT_TRUE(m.is_reconciled_to(epoch(3)));
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0, 1}}}), tps({{t1, {0}}}), nobody());
  // Stable at the target epoch: a target that differs is not looked at.
  EXPECT_EQ(r.next, m.current);
}

TEST(ReconcileStateMachine, MemberBehindTheTargetWithNothingToGiveUpMovesOnKeepingAssignmentEpochs) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(3), epoch(2), member_state::stable, at(epoch(2), tps({{t1, {0}}})));
  auto r = reconcile_with(m, epoch(5), tps({{t1, {0, 1}}}), tps({{t1, {0}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(5), epoch(3), member_state::stable,
                               merged(at(epoch(2), tps({{t1, {0}}})), at(epoch(5), tps({{t1, {1}}})))));
}

TEST(ReconcileStateMachine, MemberThatMustGiveUpPartitionsIsAskedToRevokeFirstAndKeepsItsEpoch) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0, 1, 2, 3}}})));
  auto r = reconcile_with(m, epoch(2), tps({{t1, {0, 1}}}), tps({{t1, {0, 1, 2, 3}}}), nobody());
  // The old epoch becomes the previous one even though it does not change.
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(1), member_state::unrevoked_partitions,
                               at(epoch(1), tps({{t1, {0, 1}}})), at(epoch(1), tps({{t1, {2, 3}}}))));

  m.current = r.next;
  // Still owning one of them, or not saying: it waits.
  EXPECT_EQ(reconcile_with(m, epoch(2), tps({{t1, {0, 1}}}), tps({{t1, {0, 1, 3}}}), nobody()).next, m.current);
  EXPECT_EQ(reconcile_with(m, epoch(2), tps({{t1, {0, 1}}}), std::nullopt, nobody()).next, m.current);

  // Acknowledged: on to the target epoch.
  r = reconcile_with(m, epoch(2), tps({{t1, {0, 1}}}), tps({{t1, {0, 1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::stable, at(epoch(1), tps({{t1, {0, 1}}}))));
}

TEST(ReconcileStateMachine, HeartbeatWithoutOwnedPartitionsCountsAsStillOwningWhatIsRevoked) {
  auto m = member_with("a", {"t1", "t2"});
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0}}, {t2, {0}}})));
  auto r = reconcile_with(m, epoch(2), tps({{t1, {0, 1}}}), std::nullopt, nobody());
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(1), member_state::unrevoked_partitions, at(epoch(1), tps({{t1, {0}}})),
                               at(epoch(1), tps({{t2, {0}}}))));
  // The same for a subscription change at the target epoch.
  m.current = assignment(epoch(2), epoch(1), member_state::stable, at(epoch(2), tps({{t1, {0}}, {t2, {0}}})));
  m.subscription.subscribed_topic_names = {"t1"};
  r = reconcile_with(m, epoch(2), tps({{t1, {0}}, {t2, {0}}}), std::nullopt, nobody(), true);
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(2), member_state::unrevoked_partitions, at(epoch(2), tps({{t1, {0}}})),
                               at(epoch(2), tps({{t2, {0}}}))));
}

TEST(ReconcileStateMachine, NewPartitionsComeOnlyAfterTheRevocation) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0, 1}}})));
  auto r = reconcile_with(m, epoch(2), tps({{t1, {1, 2}}}), tps({{t1, {0, 1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(1), member_state::unrevoked_partitions,
                               at(epoch(1), tps({{t1, {1}}})), at(epoch(1), tps({{t1, {0}}}))));
  m.current = r.next;
  r = reconcile_with(m, epoch(2), tps({{t1, {1, 2}}}), tps({{t1, {1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::stable,
                               merged(at(epoch(1), tps({{t1, {1}}})), at(epoch(2), tps({{t1, {2}}})))));
}

TEST(ReconcileStateMachine, PartitionsTheClientAlreadyLetGoNeedNoRevocation) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0, 1}}})));
  auto r = reconcile_with(m, epoch(2), tps({{t1, {1, 2}}}), tps({{t1, {1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::stable,
                               merged(at(epoch(1), tps({{t1, {1}}})), at(epoch(2), tps({{t1, {2}}})))));
}

TEST(ReconcileStateMachine, PartitionHeldByAnotherMemberIsWithheldUntilReleased) {
  partition_epochs held;
  // Another member holds t1-2 at the older epoch 1.
  ASSERT_FALSE(held.add(at(epoch(1), tps({{t1, {2}}})), epoch(1)).has_value());

  auto m = member_with("b", {"t1"});
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0}}})));
  ASSERT_FALSE(held.add_member(m.current).has_value());
  auto r = reconcile_with(m, epoch(2), tps({{t1, {0, 1, 2}}}), tps({{t1, {0}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::unreleased_partitions,
                               merged(at(epoch(1), tps({{t1, {0}}})), at(epoch(2), tps({{t1, {1}}})))));
  ASSERT_FALSE(held.update_member(m.current, r.next).has_value());
  m.current = r.next;

  // Still held: it keeps waiting. Its epoch is set to the target's again,
  // which makes the previous epoch the same as the current one.
  r = reconcile_with(m, epoch(2), tps({{t1, {0, 1, 2}}}), tps({{t1, {0, 1}}}), owner_from(held));
  auto waiting = m.current;
  waiting.previous_epoch = epoch(2);
  EXPECT_EQ(r.next, waiting);
  m.current = r.next;
  EXPECT_EQ(reconcile_with(m, epoch(2), tps({{t1, {0, 1, 2}}}), tps({{t1, {0, 1}}}), owner_from(held)).next, m.current);

  // Released by the other member: given, at the target epoch.
  held.remove(at(epoch(1), tps({{t1, {2}}})), epoch(1));
  r = reconcile_with(m, epoch(2), tps({{t1, {0, 1, 2}}}), tps({{t1, {0, 1}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(2), member_state::stable,
                               merged(at(epoch(1), tps({{t1, {0}}})), at(epoch(2), tps({{t1, {1, 2}}})))));
}

TEST(ReconcileStateMachine, MemberWaitsAtTheNewEpochWhenEveryNewPartitionIsHeldElsewhere) {
  partition_epochs held;
  ASSERT_FALSE(held.add(at(epoch(2), tps({{t1, {1}}})), epoch(2)).has_value());
  auto m = member_with("b", {"t1"});
  m.current = assignment(epoch(2), epoch(1), member_state::stable, at(epoch(1), tps({{t1, {0}}})));
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0, 1}}}), tps({{t1, {0}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(3), epoch(2), member_state::unreleased_partitions, at(epoch(1), tps({{t1, {0}}}))));
}

TEST(ReconcileStateMachine, PartitionOfALeftStaticMemberCountsAsHeld) {
  partition_epochs held;
  ASSERT_FALSE(held.add(at(epoch(0), tps({{t1, {0}}})), leave_group_static_epoch).has_value());
  auto m = member_with("b", {"t1"});
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0}}}), tps({}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(3), epoch(0), member_state::unreleased_partitions, {}));
}

TEST(ReconcileStateMachine, UnreleasedMemberFollowsATargetThatChangesAgain) {
  partition_epochs held;
  ASSERT_FALSE(held.add(at(epoch(1), tps({{t1, {2}}})), epoch(1)).has_value());
  auto m = member_with("b", {"t1"});
  m.current = assignment(epoch(2), epoch(1), member_state::unreleased_partitions, at(epoch(2), tps({{t1, {0}}})));
  // The new target no longer wants the held partition: nothing to wait for.
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0, 3}}}), tps({{t1, {0}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(3), epoch(2), member_state::stable,
                               merged(at(epoch(2), tps({{t1, {0}}})), at(epoch(3), tps({{t1, {3}}})))));
  // Or it takes one away: revoke first, at the member's own epoch.
  r = reconcile_with(m, epoch(3), tps({{t1, {2}}}), tps({{t1, {0}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(2), member_state::unrevoked_partitions, {},
                               at(epoch(2), tps({{t1, {0}}}))));
}

TEST(ReconcileStateMachine, RevokingMemberIgnoresANewTargetUntilItHasRevoked) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(1), epoch(1), member_state::unrevoked_partitions, at(epoch(1), tps({{t1, {0}}})),
                         at(epoch(1), tps({{t1, {1, 2}}})));
  // The target moved on to epoch 3, which gives t1-1 back and t1-3 besides;
  // the member still owns t1-2.
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0, 1, 3}}}), tps({{t1, {0, 2}}}), nobody());
  EXPECT_EQ(r.next, m.current);

  // Once it let go of both, it reconciles to the newest target; t1-1, which
  // it was revoking itself, is not waited for.
  partition_epochs held;
  ASSERT_FALSE(held.add_member(m.current).has_value());
  r = reconcile_with(m, epoch(3), tps({{t1, {0, 1, 3}}}), tps({{t1, {0}}}), owner_from(held));
  EXPECT_EQ(r.next, assignment(epoch(3), epoch(1), member_state::stable,
                               merged(at(epoch(1), tps({{t1, {0}}})), at(epoch(3), tps({{t1, {1, 3}}})))));
}

TEST(ReconcileStateMachine, NewTargetThatTakesMoreAwayAfterTheAcknowledgementAsksForAnotherRevocation) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(1), epoch(1), member_state::unrevoked_partitions, at(epoch(1), tps({{t1, {0, 1}}})),
                         at(epoch(1), tps({{t1, {2}}})));
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0}}}), tps({{t1, {0, 1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(1), member_state::unrevoked_partitions, at(epoch(1), tps({{t1, {0}}})),
                               at(epoch(1), tps({{t1, {1}}}))));
}

TEST(ReconcileStateMachine, SubscriptionChangeRevokesTheTopicsLeftAtOnce) {
  auto m = member_with("a", {"t1"});  // was {"t1", "t2"}
  m.current = assignment(epoch(4), epoch(3), member_state::stable, at(epoch(4), tps({{t1, {0}}, {t2, {0, 1}}})));
  // Stable at the target epoch: without the flag nothing happens...
  auto r = reconcile_with(m, epoch(4), tps({{t1, {0}}, {t2, {0, 1}}}), tps({{t1, {0}}, {t2, {0, 1}}}), nobody());
  EXPECT_EQ(r.next, m.current);
  // ...with it the topic left goes to revocation, in the same epoch.
  r = reconcile_with(m, epoch(4), tps({{t1, {0}}, {t2, {0, 1}}}), tps({{t1, {0}}, {t2, {0, 1}}}), nobody(), true);
  EXPECT_EQ(r.next, assignment(epoch(4), epoch(4), member_state::unrevoked_partitions, at(epoch(4), tps({{t1, {0}}})),
                               at(epoch(4), tps({{t2, {0, 1}}}))));
  // A client that already dropped the topic: stable, holding less.
  r = reconcile_with(m, epoch(4), tps({{t1, {0}}, {t2, {0, 1}}}), tps({{t1, {0}}}), nobody(), true);
  EXPECT_EQ(r.next, assignment(epoch(4), epoch(4), member_state::stable, at(epoch(4), tps({{t1, {0}}}))));
  // Nothing held of a topic it left: nothing moves, not even the previous epoch.
  m.current.assigned = at(epoch(4), tps({{t1, {0}}}));
  r = reconcile_with(m, epoch(4), tps({{t1, {0}}}), tps({{t1, {0}}}), nobody(), true);
  EXPECT_EQ(r.next, m.current);
}

TEST(ReconcileStateMachine, SubscriptionChangeWhileRevokingAddsToTheRevocation) {
  auto m = member_with("a", {"t1"});  // left t2 in this heartbeat
  m.current = assignment(epoch(2), epoch(2), member_state::unrevoked_partitions,
                         at(epoch(2), tps({{t1, {0}}, {t2, {0}}})), at(epoch(2), tps({{t1, {1}}})));
  auto r = reconcile_with(m, epoch(3), tps({{t1, {0}}, {t2, {0}}}), tps({{t1, {0, 1}}, {t2, {0}}}), nobody(), true);
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(2), member_state::unrevoked_partitions, at(epoch(2), tps({{t1, {0}}})),
                               at(epoch(2), tps({{t1, {1}}, {t2, {0}}}))));
}

TEST(ReconcileStateMachine, TopicThatNoLongerExistsIsRevokedAndNeverGiven) {
  // Subscribed to t1 and to "gone", which the metadata no longer has.
  auto m = member_with("a", {"t1", "gone"});
  const auto gone = topic(9);  // its old id, still in the member's holding and a stale target
  m.current = assignment(epoch(1), epoch(0), member_state::stable, at(epoch(1), tps({{t1, {0}}, {gone, {0, 1}}})));
  auto r = reconcile_with(m, epoch(2), tps({{t1, {0}}, {gone, {0, 1, 2}}}), tps({{t1, {0}}, {gone, {0, 1}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(1), epoch(1), member_state::unrevoked_partitions, at(epoch(1), tps({{t1, {0}}})),
                               at(epoch(1), tps({{gone, {0, 1}}}))));
  // A client drops a deleted topic's partitions by itself.
  m.current = r.next;
  r = reconcile_with(m, epoch(2), tps({{t1, {0}}, {gone, {0, 1, 2}}}), tps({{t1, {0}}}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(1), member_state::stable, at(epoch(1), tps({{t1, {0}}}))));
}

TEST(ReconcileStateMachine, TargetPartitionsOfATopicTheMemberDoesNotSubscribeToAreNotGiven) {
  auto m = member_with("a", {"t1"});
  auto r = reconcile_with(m, epoch(2), tps({{t1, {0}}, {t2, {0}}}), tps({}), nobody());
  EXPECT_EQ(r.next, assignment(epoch(2), epoch(0), member_state::stable, at(epoch(2), tps({{t1, {0}}}))));
}

TEST(ReconcileStateMachine, RegexSubscriptionCountsOnceResolved) {
  auto m = member_with("a", {"t1"});
  m.subscription.subscribed_topic_regex = "t.*";
  const std::set<std::string> resolved{"t2", "gone"};
  EXPECT_EQ(subscribed_topic_ids(m, &resolved, topic_by_name), (std::set<protocol::uuid>{t1, t2}));
  // Not resolved yet: only the names count.
  EXPECT_EQ(subscribed_topic_ids(m, nullptr, topic_by_name), (std::set<protocol::uuid>{t1}));
  // A resolution is ignored when the member has no regular expression.
  m.subscription.subscribed_topic_regex.clear();
  EXPECT_EQ(subscribed_topic_ids(m, &resolved, topic_by_name), (std::set<protocol::uuid>{t1}));
}

TEST(ReconcileStateMachine, UnknownStateIsFencedUnlessTheMemberOwnsNothing) {
  auto m = member_with("a", {"t1"});
  m.current = assignment(epoch(3), epoch(2), member_state::unknown, at(epoch(3), tps({{t1, {0, 1}}})));
  auto r = reconcile_with(m, epoch(4), tps({{t1, {1, 2}}}), std::nullopt, nobody());
  EXPECT_EQ(r.error, error_code::fenced_member_epoch);
  EXPECT_EQ(r.error_message,
            "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.");
  EXPECT_EQ(reconcile_with(m, epoch(4), tps({{t1, {1, 2}}}), tps({{t1, {}}}), nobody()).error,
            error_code::fenced_member_epoch);

  // Owning nothing: reconciled from scratch to the target epoch.
  r = reconcile_with(m, epoch(4), tps({{t1, {1, 2}}}), tps({}), nobody());
  EXPECT_EQ(r.error, error_code::none);
  EXPECT_EQ(r.next, assignment(epoch(4), epoch(3), member_state::stable,
                               merged(at(epoch(3), tps({{t1, {1}}})), at(epoch(4), tps({{t1, {2}}})))));
}

TEST(ReconcileStateMachine, StateByteRoundTripsAndUnknownBytesReadAsUnknown) {
  for (auto s : {member_state::stable, member_state::unrevoked_partitions, member_state::unreleased_partitions,
                 member_state::unknown}) {
    EXPECT_EQ(member_state_from_value(static_cast<int8_t>(s)), s);
  }
  EXPECT_EQ(member_state_from_value(3), member_state::unknown);
  EXPECT_EQ(member_state_from_value(-1), member_state::unknown);
  EXPECT_EQ(to_string(member_state::unrevoked_partitions), "UNREVOKED_PARTITIONS");
  EXPECT_EQ(to_string(member_state::unreleased_partitions), "UNRELEASED_PARTITIONS");
}

}  // namespace
}  // namespace hw::broker::group::consumer
