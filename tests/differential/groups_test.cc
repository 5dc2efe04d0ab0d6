// Classic consumer groups: FindCoordinator, JoinGroup, SyncGroup,
// Heartbeat, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups,
// LeaveGroup and DeleteGroups, on the happy path and with unknown groups,
// unknown members and wrong generations. Member ids are each broker's own,
// so requests that carry them are built per broker.

#include <algorithm>

#include "broker_process.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

msg::join_group_request join_req(const std::string& group, const std::string& member_id) {
  msg::join_group_request req;
  req.group_id = group;
  req.session_timeout_ms = 30000;
  req.rebalance_timeout_ms = 30000;
  req.member_id = member_id;
  req.protocol_type = "consumer";
  msg::join_group_request::join_group_request_protocol p;
  p.name = "range";
  p.metadata = {0, 3, 0, 0, 0, 0};
  req.protocols.push_back(p);
  return req;
}

// One member per broker, joined and synced; state of the sequence.
struct members {
  std::string group;
  std::array<std::string, 2> id;
  std::array<int32_t, 2> generation{-1, -1};
  const std::string& of(side s) const { return id[static_cast<int>(s)]; }
};

members join_and_sync(twin& t, const std::string& group) {
  members m;
  m.group = group;
  wait_for_coordinator(t, group);
  auto first = t.call("JoinGroup new member", 11, 9, join_req(group, ""));
  expect_same(first, member_allow());
  for (side s : k_sides)
    if (first.of(s).error.empty()) m.id[static_cast<int>(s)] = first.as<msg::join_group_response>(s).member_id;
  auto joined = t.call_each("JoinGroup with member id", 11, 9, [&](side s) { return join_req(group, m.of(s)); });
  expect_same(joined, member_allow());
  for (side s : k_sides)
    if (joined.of(s).error.empty()) m.generation[static_cast<int>(s)] = joined.as<msg::join_group_response>(s).generation_id;
  auto synced = t.call_each("SyncGroup leader", 14, 5, [&](side s) {
    msg::sync_group_request req;
    req.group_id = group;
    req.generation_id = m.generation[static_cast<int>(s)];
    req.member_id = m.of(s);
    req.protocol_type = "consumer";
    req.protocol_name = "range";
    msg::sync_group_request::sync_group_request_assignment a;
    a.member_id = m.of(s);
    a.assignment = {0, 3, 0, 0, 0, 1};
    req.assignments.push_back(a);
    return req;
  });
  expect_same(synced, member_allow());
  return m;
}

msg::heartbeat_request heartbeat_req(const std::string& group, int32_t generation, const std::string& member) {
  msg::heartbeat_request req;
  req.group_id = group;
  req.generation_id = generation;
  req.member_id = member;
  return req;
}

TEST_F(DifferentialTest, FindCoordinator) {
  const std::string group = fresh_name("fc");
  wait_for_coordinator(t(), group);
  for (int16_t v : {0, 3}) {
    msg::find_coordinator_request req;
    req.key = group;
    expect_same(t().call("FindCoordinator", 10, v, req));
  }
  msg::find_coordinator_request batched;
  batched.coordinator_keys = {group, fresh_name("fc2")};
  expect_same(t().call("FindCoordinator batched", 10, 6, batched));
  msg::find_coordinator_request bad_type;
  bad_type.key = group;
  bad_type.key_type = 5;
  expect_same(t().call("FindCoordinator unknown key type", 10, 3, bad_type));
}

// OffsetCommit at the member's generation and a wrong one, then OffsetFetch
// (batched v9 and single-group v7).
void commit_and_fetch(twin& t, const members& m, const std::string& topic) {
  auto gen = [&](side s) { return m.generation[static_cast<int>(s)]; };
  auto commit = [&](side s, int32_t generation) {
    msg::offset_commit_request req;
    req.group_id = m.group;
    req.generation_id_or_member_epoch = generation;
    req.member_id = m.of(s);
    msg::offset_commit_request::offset_commit_request_topic ct;
    ct.name = topic;
    msg::offset_commit_request::offset_commit_request_partition cp;
    cp.partition_index = 0;
    cp.committed_offset = 42;
    cp.committed_metadata = "meta";
    ct.partitions.push_back(cp);
    req.topics.push_back(ct);
    return req;
  };
  expect_same(t.call_each("OffsetCommit", 8, 9, [&](side s) { return commit(s, gen(s)); }), member_allow());
  expect_same(t.call_each("OffsetCommit wrong generation", 8, 9, [&](side s) { return commit(s, gen(s) + 1); }),
              member_allow());

  msg::offset_fetch_request fetch;
  msg::offset_fetch_request::offset_fetch_request_group fg;
  fg.group_id = m.group;
  msg::offset_fetch_request::offset_fetch_request_topics ft;
  ft.name = topic;
  ft.partition_indexes = {0, 1};
  fg.topics->push_back(ft);
  fetch.groups.push_back(fg);
  expect_same(t.call("OffsetFetch", 9, 9, fetch));
  msg::offset_fetch_request old_fetch;
  msg::offset_fetch_request::offset_fetch_request_topic ot;
  ot.name = topic;
  ot.partition_indexes = {0};
  old_fetch.group_id = m.group;
  old_fetch.topics->push_back(ot);
  expect_same(t.call("OffsetFetch v7", 9, 7, old_fetch));
}

TEST_F(DifferentialTest, GroupLifecycle) {
  const std::string topic = fresh_name("g-topic");
  create_topic(t(), topic);
  members m = join_and_sync(t(), fresh_name("g"));
  auto gen = [&](side s) { return m.generation[static_cast<int>(s)]; };
  expect_same(t().call_each("Heartbeat", 12, 4, [&](side s) { return heartbeat_req(m.group, gen(s), m.of(s)); }),
              member_allow());
  expect_same(t().call_each("Heartbeat wrong generation", 12, 4,
                            [&](side s) { return heartbeat_req(m.group, gen(s) + 5, m.of(s)); }),
              member_allow());
  expect_same(t().call("Heartbeat unknown member", 12, 4, heartbeat_req(m.group, 1, "nobody")), member_allow());

  commit_and_fetch(t(), m, topic);

  msg::describe_groups_request describe;
  describe.groups = {m.group, fresh_name("g-none")};
  expect_same(t().call("DescribeGroups", 15, 5, describe), member_allow());

  // ListGroups lists every group on the broker; compare this group's entry.
  msg::list_groups_request list;
  auto listed = t().call("ListGroups", 16, 5, list);
  for (side s : k_sides) {
    ASSERT_TRUE(listed.of(s).error.empty()) << side_name(s);
    auto groups = listed.as<msg::list_groups_response>(s).groups;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group_id == m.group; });
    ASSERT_NE(it, groups.end()) << side_name(s) << " does not list " << m.group;
    EXPECT_EQ(it->protocol_type, "consumer") << side_name(s);
    EXPECT_EQ(it->group_state, "Stable") << side_name(s);
    EXPECT_EQ(it->group_type, "classic") << side_name(s);
  }

  msg::delete_groups_request del;
  del.groups_names = {m.group};
  expect_same(t().call("DeleteGroups non-empty", 42, 2, del));

  expect_same(t().call_each("LeaveGroup", 13, 5, [&](side s) {
    msg::leave_group_request req;
    req.group_id = m.group;
    msg::leave_group_request::member_identity mi;
    mi.member_id = m.of(s);
    req.members.push_back(mi);
    msg::leave_group_request::member_identity unknown;
    unknown.member_id = "nobody";
    req.members.push_back(unknown);
    return req;
  }), member_allow());
  expect_same(t().call("DescribeGroups after leave", 15, 5, describe), member_allow());
  // One group per request: Kafka answers a request's groups in no fixed order.
  expect_same(t().call("DeleteGroups empty", 42, 2, del));
  del.groups_names = {fresh_name("g-none")};
  expect_same(t().call("DeleteGroups unknown", 42, 2, del));
}

TEST_F(DifferentialTest, GroupErrors) {
  const std::string group = fresh_name("g-err");
  wait_for_coordinator(t(), group);
  expect_same(t().call("JoinGroup unknown member on a new group", 11, 9, join_req(group, "nobody")), member_allow());
  expect_same(t().call("JoinGroup empty group id", 11, 9, join_req("", "")), member_allow());
  auto bad_timeout = join_req(group, "");
  bad_timeout.session_timeout_ms = 1;
  expect_same(t().call("JoinGroup session timeout too small", 11, 9, bad_timeout), member_allow());
  expect_same(t().call("Heartbeat unknown group", 12, 4, heartbeat_req(fresh_name("g-none"), 1, "nobody")));
  msg::sync_group_request sync;
  sync.group_id = fresh_name("g-none");
  sync.generation_id = 1;
  sync.member_id = "nobody";
  expect_same(t().call("SyncGroup unknown group", 14, 5, sync));
  msg::leave_group_request leave;
  leave.group_id = fresh_name("g-none");
  leave.member_id = "nobody";
  expect_same(t().call("LeaveGroup v0 unknown group", 13, 0, leave));
  msg::offset_fetch_request fetch;
  msg::offset_fetch_request::offset_fetch_request_group fg;
  fg.group_id = fresh_name("g-none");
  fg.topics.reset();  // every committed offset
  fetch.groups.push_back(fg);
  expect_same(t().call("OffsetFetch unknown group", 9, 9, fetch));
  msg::offset_commit_request commit;
  commit.group_id = fresh_name("g-none");
  commit.generation_id_or_member_epoch = 3;
  commit.member_id = "nobody";
  expect_same(t().call("OffsetCommit unknown group with generation", 8, 9, commit));
}

}  // namespace
}  // namespace hw::testing::differential
