// member_table on its own: the counts and indexes it keeps beside the
// members (parked joins, static ids, pending members and syncs, protocol
// votes) stay in step through add, update, replace and remove.
#include "broker/group/member_table.h"

#include <gtest/gtest.h>

#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

group_member member(std::string id, std::vector<member_protocol> protocols,
                    std::optional<std::string> instance_id = std::nullopt, int32_t rebalance_timeout_ms = 1000) {
  group_member m;
  m.member_id = std::move(id);
  m.group_instance_id = std::move(instance_id);
  m.protocol_type = "consumer";
  m.protocols = std::move(protocols);
  m.rebalance_timeout_ms = rebalance_timeout_ms;
  m.session_timeout_ms = 10'000;
  return m;
}

std::vector<member_protocol> named(std::initializer_list<const char*> names) {
  std::vector<member_protocol> out;
  for (const char* n : names) out.push_back({n, {}});
  return out;
}

TEST(GroupMemberTable, ParkedJoinsAndPendingMembersDecideAllJoined) {
  member_table t;
  EXPECT_TRUE(t.all_joined());  // vacuously
  t.add_pending("p", 500);
  EXPECT_TRUE(t.is_pending("p"));
  EXPECT_FALSE(t.all_joined()) << "a pending member has not joined yet";

  t.add(member("p", named({"range"})), parked_request{7, 5});
  EXPECT_FALSE(t.is_pending("p")) << "joining ends pending";
  EXPECT_TRUE(t.pending_members().empty());
  t.add(member("q", named({"range"})), std::nullopt);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.awaiting_join_count(), 1);
  EXPECT_FALSE(t.all_joined());

  group_member& q = *t.find("q");
  t.update(q, named({"range"}), 2000, 20'000, parked_request{8, 9});
  EXPECT_EQ(t.awaiting_join_count(), 2);
  EXPECT_TRUE(t.all_joined());
  EXPECT_EQ(t.rebalance_timeout_ms(), 2000);
  EXPECT_EQ(q.session_timeout_ms, 20'000);
  // A second update with a new parked join counts it once.
  t.update(q, named({"range"}), 2000, 20'000, parked_request{9, 9});
  EXPECT_EQ(t.awaiting_join_count(), 2);

  auto taken = t.take_join(q);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->token, 9u);
  EXPECT_FALSE(q.awaiting_join.has_value());
  EXPECT_EQ(t.awaiting_join_count(), 1);
  EXPECT_FALSE(t.take_join(q).has_value()) << "nothing parked any more";
  EXPECT_EQ(t.awaiting_join_count(), 1);

  t.remove("p");  // removing a parked member drops its parked join from the count
  EXPECT_EQ(t.awaiting_join_count(), 0);
  EXPECT_EQ(t.find("p"), nullptr);
  EXPECT_EQ(t.size(), 1u);
}

TEST(GroupMemberTable, ProtocolVotesFollowMembersAndPickTheMostPreferredCommonOne) {
  member_table t;
  t.add(member("a", named({"range", "roundrobin"})), std::nullopt);
  t.add(member("b", named({"roundrobin", "range", "sticky"})), std::nullopt);
  t.add(member("c", named({"roundrobin", "range"})), std::nullopt);
  EXPECT_TRUE(t.all_support_one_of(named({"range"})));
  EXPECT_TRUE(t.all_support_one_of(named({"sticky", "roundrobin"})));
  EXPECT_FALSE(t.all_support_one_of(named({"sticky"}))) << "only b speaks sticky";
  // Two members list roundrobin first, one range.
  EXPECT_EQ(t.select_protocol(), "roundrobin");

  group_member& c = *t.find("c");
  t.update(c, named({"range"}), 1000, 10'000, std::nullopt);
  EXPECT_FALSE(t.all_support_one_of(named({"roundrobin"}))) << "c's old votes are gone";
  EXPECT_EQ(t.select_protocol(), "range");

  t.remove("c");
  EXPECT_TRUE(t.all_support_one_of(named({"roundrobin"})));
  t.add(member("d", named({"sticky"})), std::nullopt);
  EXPECT_FALSE(t.all_support_one_of(named({"range", "roundrobin", "sticky"})));
}

TEST(GroupMemberTable, TiesGoToTheFirstNameInOrder) {
  member_table t;
  t.add(member("a", named({"zeta", "alpha"})), std::nullopt);
  t.add(member("b", named({"alpha", "zeta"})), std::nullopt);
  EXPECT_EQ(t.select_protocol(), "alpha");
}

TEST(GroupMemberTable, StaticMemberReplacementFencesTheOldIdsParkedRequests) {
  member_table t;
  t.add(member("old", named({"range"}), "i-1"), parked_request{11, 7});
  t.find("old")->awaiting_sync = parked_request{12, 3};
  t.find("old")->heartbeat_deadline_ms = 1234;
  t.add_pending_sync("old");
  EXPECT_EQ(t.static_member_id("i-1"), std::optional<std::string>("old"));
  EXPECT_EQ(t.validate("old", std::string("i-1")), error_code::none);

  std::vector<completion> out;
  group_member& m = t.replace_static("i-1", "old", "new", out);
  EXPECT_EQ(m.member_id, "new");
  EXPECT_FALSE(m.awaiting_join.has_value());
  EXPECT_FALSE(m.awaiting_sync.has_value());
  EXPECT_FALSE(m.heartbeat_deadline_ms.has_value());
  EXPECT_EQ(t.awaiting_join_count(), 0);
  EXPECT_EQ(t.static_member_id("i-1"), std::optional<std::string>("new"));
  EXPECT_EQ(t.find("old"), nullptr);
  EXPECT_EQ(t.size(), 1u);

  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].token, 11u);
  const auto* join = std::get_if<msg::join_group_response>(&out[0].answer);
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->error_code, code(error_code::fenced_instance_id));
  EXPECT_EQ(join->member_id, "old");
  EXPECT_FALSE(join->protocol_name.has_value()) << "v7+ carries a null protocol name";
  EXPECT_EQ(out[1].token, 12u);
  const auto* sync = std::get_if<msg::sync_group_response>(&out[1].answer);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->error_code, code(error_code::fenced_instance_id));

  EXPECT_EQ(t.validate("new", std::string("i-1")), error_code::none);
  EXPECT_EQ(t.validate("old", std::string("i-1")), error_code::fenced_instance_id);
  EXPECT_EQ(t.validate("new", std::string("i-2")), error_code::unknown_member_id);
  EXPECT_EQ(t.validate("nobody", std::nullopt), error_code::unknown_member_id);

  t.remove("new");
  EXPECT_FALSE(t.static_member_id("i-1").has_value()) << "removal frees the instance id";
}

TEST(GroupMemberTable, RemoveClearsPendingMemberAndPendingSync) {
  member_table t;
  t.add(member("a", named({"range"})), std::nullopt);
  t.add(member("b", named({"range"})), std::nullopt);
  t.add_pending("p", 100);
  t.add_pending_sync("a");
  t.add_pending_sync("b");
  t.remove("a");
  t.remove("p");
  EXPECT_EQ(t.pending_sync(), (std::set<std::string, std::less<>>{"b"}));
  EXPECT_TRUE(t.pending_members().empty());
  t.remove_pending_sync("b");
  t.remove_pending_sync("b");  // twice is harmless
  EXPECT_TRUE(t.pending_sync().empty());
  t.add_pending_sync("b");
  t.clear_pending_sync();
  EXPECT_TRUE(t.pending_sync().empty());
}

TEST(GroupMemberTable, SubscribedTopicsUnionTheMembersSubscriptions) {
  member_table t;
  EXPECT_EQ(t.subscribed_topics(std::nullopt), std::set<std::string>{}) << "no members: nothing subscribed";
  t.add(member("a", range_protocol({"t1", "t2"})), std::nullopt);
  t.add(member("b", range_protocol({"t2", "t3"})), std::nullopt);
  EXPECT_EQ(t.subscribed_topics(std::string("range")), (std::set<std::string>{"t1", "t2", "t3"}));
  EXPECT_FALSE(t.subscribed_topics(std::nullopt).has_value()) << "no protocol chosen: unknown";
  EXPECT_FALSE(t.subscribed_topics(std::string("sticky")).has_value()) << "a member without it: unknown";
  t.add(member("c", {{"range", {0x00}}}), std::nullopt);
  EXPECT_FALSE(t.subscribed_topics(std::string("range")).has_value()) << "undecodable subscription: unknown";
}

}  // namespace
}  // namespace hw::broker::group
