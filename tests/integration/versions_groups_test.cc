// Version sweeps of the classic group APIs: FindCoordinator, JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
// DescribeGroups, ListGroups, DeleteGroups and OffsetDelete. Each version
// runs a real member lifecycle on a group of its own: the swept API at
// that version, the others at their newest.

#include <gtest/gtest.h>

#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "versions_support.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_none = 0, k_unknown_member = 25, k_illegal_generation = 22, k_rebalance_in_progress = 27,
                  k_group_id_not_found = 69, k_non_empty_group = 68, k_inconsistent_group_protocol = 23;
constexpr int16_t k_heartbeat_v = 4, k_leave_v = 5, k_commit_v = 9, k_offset_fetch_v = 9, k_describe_v = 6;

std::string gname(const char* api, int16_t v) { return std::string(api) + "-group-v" + std::to_string(v); }

int16_t heartbeat(version_client& c, const member& m, int16_t v = k_heartbeat_v) {
  msg::heartbeat_request req;
  req.group_id = m.group;
  req.generation_id = m.generation;
  req.member_id = m.member_id;
  auto resp = c.call<msg::heartbeat_response>(12, v, req);
  if (!resp) return -1;
  if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  return resp->error_code;
}

std::optional<msg::describe_groups_response::described_group> describe(version_client& c, const std::string& group,
                                                                       int16_t v = k_describe_v) {
  msg::describe_groups_request req;
  req.groups = {group};
  req.include_authorized_operations = false;
  auto resp = c.call<msg::describe_groups_response>(15, v, req);
  if (!resp || resp->groups.size() != 1) return std::nullopt;
  return resp->groups[0];
}

// Commits offset for partition 0 of each topic at version v (by name below
// v10, by topic id from v10), as member m or, without one, as a simple
// consumer (generation -1, no member id). The error per partition.
std::vector<int16_t> commit(version_client& c, int16_t v, const std::string& group, const std::optional<member>& m,
                            const std::vector<std::pair<std::string, protocol::uuid>>& topics, int64_t offset) {
  msg::offset_commit_request req;
  req.group_id = group;
  req.generation_id_or_member_epoch = m ? m->generation : -1;
  req.member_id = m ? m->member_id : "";
  req.group_instance_id.reset();
  req.retention_time_ms = -1;  // v2-v4: the broker's default
  for (const auto& [name, id] : topics) {
    msg::offset_commit_request::offset_commit_request_topic t;
    if (v >= 10) t.topic_id = id;
    else t.name = name;
    msg::offset_commit_request::offset_commit_request_partition p;
    p.partition_index = 0;
    p.committed_offset = offset;
    p.committed_leader_epoch = v >= 6 ? 0 : -1;
    p.committed_metadata = "meta-v" + std::to_string(v);
    t.partitions.push_back(p);
    req.topics.push_back(t);
  }
  auto resp = c.call<msg::offset_commit_response>(8, v, req);
  std::vector<int16_t> errors;
  if (!resp) return errors;
  if (v >= 3) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  EXPECT_EQ(resp->topics.size(), topics.size());
  for (size_t i = 0; i < resp->topics.size() && i < topics.size(); ++i) {
    if (v >= 10) { EXPECT_EQ(resp->topics[i].topic_id, topics[i].second); }
    else EXPECT_EQ(resp->topics[i].name, topics[i].first);
    for (const auto& p : resp->topics[i].partitions) errors.push_back(p.error_code);
  }
  return errors;
}

// The committed offset of (group, topic, 0) read with OffsetFetch v9.
int64_t committed(version_client& c, const std::string& group, const std::string& topic) {
  msg::offset_fetch_request req;
  msg::offset_fetch_request::offset_fetch_request_group g;
  g.group_id = group;
  g.topics.emplace();
  msg::offset_fetch_request::offset_fetch_request_topics t;
  t.name = topic;
  t.partition_indexes = {0};
  g.topics->push_back(t);
  req.groups.push_back(g);
  auto resp = c.call<msg::offset_fetch_response>(9, k_offset_fetch_v, req);
  if (!resp) return -2;
  return resp->groups.at(0).topics.at(0).partitions.at(0).committed_offset;
}

void find_coordinator_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  ASSERT_TRUE(wait_for_coordinator(c, gname("find", v)));
  msg::find_coordinator_request req;
  req.key_type = 0;  // group (v1+)
  if (v >= 4) req.coordinator_keys = {gname("find-a", v), gname("find-b", v)};
  else req.key = gname("find", v);
  auto resp = c.call<msg::find_coordinator_response>(10, v, req);
  ASSERT_TRUE(resp);
  if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  if (v >= 4) {
    ASSERT_EQ(resp->coordinators.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      const auto& k = resp->coordinators[i];
      EXPECT_EQ(k.key, req.coordinator_keys[i]);
      EXPECT_EQ(k.error_code, k_none);
      EXPECT_EQ(k.node_id, 1);
      EXPECT_EQ(k.host, "127.0.0.1");
      EXPECT_EQ(k.port, ctx.port);
    }
  } else {
    EXPECT_EQ(resp->error_code, k_none);
    EXPECT_EQ(resp->node_id, 1);
    EXPECT_EQ(resp->host, "127.0.0.1");
    EXPECT_EQ(resp->port, ctx.port);
    EXPECT_TRUE(resp->coordinators.empty());
  }
}

// JoinGroup at v (with MEMBER_ID_REQUIRED from v4), then sync, heartbeat
// and leave at their newest versions.
void join_group_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  auto m = join_and_sync(ctx, gname("join", v), v, k_sync_v);
  ASSERT_TRUE(m);
  EXPECT_EQ(heartbeat(c, *m), k_none);
  auto d = describe(c, m->group);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->group_state, "Stable");
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_EQ(d->members[0].member_id, m->member_id);
  // A second join of the same member (the leader) rebalances to the next
  // generation at once: it is the only member.
  msg::join_group_request again;
  again.group_id = m->group;
  again.session_timeout_ms = 30000;
  again.rebalance_timeout_ms = 30000;
  again.member_id = m->member_id;
  again.protocol_type = "consumer";
  msg::join_group_request::join_group_request_protocol proto;
  proto.name = "range";
  proto.metadata = {0, 3, 9, 9};
  again.protocols.push_back(proto);
  auto rejoin = c.call<msg::join_group_response>(11, v, again);
  ASSERT_TRUE(rejoin);
  EXPECT_EQ(rejoin->error_code, k_none);
  EXPECT_EQ(rejoin->generation_id, m->generation + 1);
  EXPECT_EQ(rejoin->member_id, m->member_id);
  // The old generation is now fenced.
  EXPECT_EQ(heartbeat(c, *m), k_illegal_generation);
}

// SyncGroup at v after a join at the newest version: the leader's
// assignment comes back to it.
void sync_group_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  std::vector<uint8_t> assignment{0, 1, 0, 0, 0, 1, static_cast<uint8_t>(v)};
  auto m = join_and_sync(ctx, gname("sync", v), k_join_v, v, assignment);
  ASSERT_TRUE(m);
  EXPECT_EQ(heartbeat(c, *m), k_none);
  auto d = describe(c, m->group);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_EQ(d->members[0].member_assignment, assignment);
  // A sync for an unknown member.
  msg::sync_group_request bad;
  bad.group_id = m->group;
  bad.generation_id = m->generation;
  bad.member_id = "nobody";
  if (v >= 5) {
    // From v5 protocol type and name are mandatory: Kafka refuses a request
    // without them before looking at the member.
    auto missing = c.call<msg::sync_group_response>(14, v, bad);
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->error_code, k_inconsistent_group_protocol);
    bad.protocol_type = "consumer";
    bad.protocol_name = "range";
  }
  auto resp = c.call<msg::sync_group_response>(14, v, bad);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_unknown_member);
  EXPECT_TRUE(resp->assignment.empty());
}

void heartbeat_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  auto m = join_and_sync(ctx, gname("heartbeat", v));
  ASSERT_TRUE(m);
  EXPECT_EQ(heartbeat(c, *m, v), k_none);
  member stale = *m;
  stale.generation += 5;
  EXPECT_EQ(heartbeat(c, stale, v), k_illegal_generation);
  member stranger = *m;
  stranger.member_id = "nobody";
  EXPECT_EQ(heartbeat(c, stranger, v), k_unknown_member);
  EXPECT_EQ(heartbeat(c, *m, v), k_none);
}

// LeaveGroup at v: one member id below v3, a member list from v3 with one
// answer per member. The group is then Empty.
void leave_group_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  auto m = join_and_sync(ctx, gname("leave", v));
  ASSERT_TRUE(m);
  msg::leave_group_request req;
  req.group_id = m->group;
  if (v >= 3) {
    for (const char* id : {m->member_id.c_str(), "nobody"}) {
      msg::leave_group_request::member_identity mi;
      mi.member_id = id;
      mi.group_instance_id.reset();
      if (v >= 5) mi.reason = "version sweep";
      req.members.push_back(mi);
    }
  } else {
    req.member_id = m->member_id;
  }
  auto resp = c.call<msg::leave_group_response>(13, v, req);
  ASSERT_TRUE(resp);
  if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  EXPECT_EQ(resp->error_code, k_none);
  if (v >= 3) {
    ASSERT_EQ(resp->members.size(), 2u);
    EXPECT_EQ(resp->members[0].member_id, m->member_id);
    EXPECT_EQ(resp->members[0].error_code, k_none);
    EXPECT_EQ(resp->members[1].member_id, "nobody");
    EXPECT_EQ(resp->members[1].error_code, k_unknown_member);
  } else {
    EXPECT_TRUE(resp->members.empty());
  }
  auto d = describe(c, m->group);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->group_state, "Empty");
  EXPECT_TRUE(d->members.empty());
  EXPECT_EQ(heartbeat(c, *m), k_unknown_member);
}

// OffsetCommit at v: as the group's member, then as a simple consumer of
// another group; read back. A stale generation is refused.
void offset_commit_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = "commit-topic-v" + std::to_string(v);
  const auto id = create_topic(c, topic, 1);
  auto m = join_and_sync(ctx, gname("commit", v));
  ASSERT_TRUE(m);
  const std::vector<std::pair<std::string, protocol::uuid>> topics{{topic, id}};
  EXPECT_EQ(commit(c, v, m->group, m, topics, 100 + v), std::vector<int16_t>{k_none});
  EXPECT_EQ(committed(c, m->group, topic), 100 + v);
  member stale = *m;
  stale.generation += 3;
  EXPECT_EQ(commit(c, v, m->group, stale, topics, 7), std::vector<int16_t>{k_illegal_generation});
  EXPECT_EQ(committed(c, m->group, topic), 100 + v);

  const std::string simple = gname("commit-simple", v);
  ASSERT_TRUE(wait_for_coordinator(c, simple));
  EXPECT_EQ(commit(c, v, simple, std::nullopt, topics, 200 + v), std::vector<int16_t>{k_none});
  EXPECT_EQ(committed(c, simple, topic), 200 + v);
}

// OffsetFetch at v: one group with a topic list (v1-v7; every topic from
// v2 with a null list) or a batch of groups (v8+, topic ids from v10).
void offset_fetch_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = "fetch-offsets-topic-v" + std::to_string(v);
  const auto id = create_topic(c, topic, 1);
  const std::string g1 = gname("offset-fetch-a", v), g2 = gname("offset-fetch-b", v);
  for (const auto& [g, offset] : {std::pair{g1, 10}, std::pair{g2, 20}}) {
    ASSERT_TRUE(wait_for_coordinator(c, g));
    ASSERT_EQ(commit(c, 9, g, std::nullopt, {{topic, id}}, offset), std::vector<int16_t>{k_none});
  }
  const std::string metadata = "meta-v9";
  msg::offset_fetch_request req;
  req.require_stable = v >= 7;
  if (v >= 8) {
    for (const auto& g : {g1, g2}) {
      msg::offset_fetch_request::offset_fetch_request_group rg;
      rg.group_id = g;
      rg.topics.emplace();
      msg::offset_fetch_request::offset_fetch_request_topics t;
      if (v >= 10) t.topic_id = id;
      else t.name = topic;
      t.partition_indexes = {0, 1};  // partition 1 does not exist
      rg.topics->push_back(t);
      req.groups.push_back(rg);
    }
    auto resp = c.call<msg::offset_fetch_response>(9, v, req);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->throttle_time_ms, 0);
    ASSERT_EQ(resp->groups.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      const auto& g = resp->groups[i];
      EXPECT_EQ(g.group_id, i == 0 ? g1 : g2);
      EXPECT_EQ(g.error_code, k_none);
      ASSERT_EQ(g.topics.size(), 1u);
      if (v >= 10) { EXPECT_EQ(g.topics[0].topic_id, id); }
      else EXPECT_EQ(g.topics[0].name, topic);
      ASSERT_EQ(g.topics[0].partitions.size(), 2u);
      const auto& p0 = g.topics[0].partitions[0];
      EXPECT_EQ(p0.partition_index, 0);
      EXPECT_EQ(p0.committed_offset, i == 0 ? 10 : 20);
      EXPECT_EQ(p0.committed_leader_epoch, 0);
      EXPECT_EQ(p0.metadata, std::optional<std::string>(metadata));
      EXPECT_EQ(p0.error_code, k_none);
      const auto& p1 = g.topics[0].partitions[1];
      EXPECT_EQ(p1.committed_offset, -1);
      EXPECT_EQ(p1.error_code, k_none);
    }
    return;
  }
  req.group_id = g1;
  if (v >= 2) {
    req.topics.reset();  // every committed partition of the group
  } else {
    msg::offset_fetch_request::offset_fetch_request_topic t;
    t.name = topic;
    t.partition_indexes = {0};
    req.topics->push_back(t);
  }
  auto resp = c.call<msg::offset_fetch_response>(9, v, req);
  ASSERT_TRUE(resp);
  if (v >= 3) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  if (v >= 2) { EXPECT_EQ(resp->error_code, k_none); }
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].name, topic);
  ASSERT_EQ(resp->topics[0].partitions.size(), 1u);
  const auto& p = resp->topics[0].partitions[0];
  EXPECT_EQ(p.partition_index, 0);
  EXPECT_EQ(p.committed_offset, 10);
  if (v >= 5) { EXPECT_EQ(p.committed_leader_epoch, 0); }
  EXPECT_EQ(p.metadata, std::optional<std::string>(metadata));
  EXPECT_EQ(p.error_code, k_none);
  EXPECT_TRUE(resp->groups.empty());
}

void describe_groups_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  auto m = join_and_sync(ctx, gname("describe", v));
  ASSERT_TRUE(m);
  msg::describe_groups_request req;
  req.groups = {m->group, gname("describe-missing", v)};
  req.include_authorized_operations = v >= 3;
  auto resp = c.call<msg::describe_groups_response>(15, v, req);
  ASSERT_TRUE(resp);
  if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  ASSERT_EQ(resp->groups.size(), 2u);
  const auto& g = resp->groups[0];
  EXPECT_EQ(g.error_code, k_none);
  EXPECT_FALSE(g.error_message.has_value());
  EXPECT_EQ(g.group_id, m->group);
  EXPECT_EQ(g.group_state, "Stable");
  EXPECT_EQ(g.protocol_type, "consumer");
  EXPECT_EQ(g.protocol_data, "range");
  ASSERT_EQ(g.members.size(), 1u);
  EXPECT_EQ(g.members[0].member_id, m->member_id);
  EXPECT_FALSE(g.members[0].group_instance_id.has_value());
  EXPECT_EQ(g.members[0].client_id, "it");
  EXPECT_FALSE(g.members[0].client_host.empty());
  EXPECT_EQ(g.members[0].member_metadata, (std::vector<uint8_t>{0, 3, 9, 9}));
  EXPECT_EQ(g.members[0].member_assignment, (std::vector<uint8_t>{0, 1, 2, 3}));
  // Without an authorizer every group operation: READ, DELETE, DESCRIBE,
  // DESCRIBE_CONFIGS, ALTER_CONFIGS (3400, what Kafka 4.3 answers).
  if (v >= 3) { EXPECT_EQ(g.authorized_operations, 3400); }
  // A group nobody knows: Dead with no error below v6, GROUP_ID_NOT_FOUND from v6.
  const auto& missing = resp->groups[1];
  EXPECT_EQ(missing.group_id, req.groups[1]);
  EXPECT_EQ(missing.group_state, "Dead");
  if (v >= 6) {
    EXPECT_EQ(missing.error_code, k_group_id_not_found);
    EXPECT_EQ(missing.error_message, std::optional<std::string>("Group " + missing.group_id + " not found."));
  } else {
    EXPECT_EQ(missing.error_code, k_none);
  }
}

void list_groups_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  auto m = join_and_sync(ctx, gname("list", v));
  ASSERT_TRUE(m);
  auto list = [&](std::vector<std::string> states, std::vector<std::string> types) -> std::optional<bool> {
    msg::list_groups_request req;
    req.states_filter = std::move(states);
    req.types_filter = std::move(types);
    auto resp = c.call<msg::list_groups_response>(16, v, req);
    if (!resp) return std::nullopt;
    if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
    EXPECT_EQ(resp->error_code, k_none);
    for (const auto& g : resp->groups)
      if (g.group_id == m->group) {
        EXPECT_EQ(g.protocol_type, "consumer");
        if (v >= 4) { EXPECT_EQ(g.group_state, "Stable"); }
        if (v >= 5) { EXPECT_EQ(g.group_type, "classic"); }
        return true;
      }
    return false;
  };
  EXPECT_EQ(list({}, {}), std::optional<bool>(true));
  if (v >= 4) {
    EXPECT_EQ(list({"Stable"}, {}), std::optional<bool>(true));
    EXPECT_EQ(list({"Empty"}, {}), std::optional<bool>(false));
  }
  if (v >= 5) {
    EXPECT_EQ(list({}, {"classic"}), std::optional<bool>(true));
    EXPECT_EQ(list({}, {"consumer"}), std::optional<bool>(false));
  }
}

void delete_groups_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = "delete-groups-topic-v" + std::to_string(v);
  const auto id = create_topic(c, topic, 1);
  const std::string empty = gname("delete-empty", v);
  ASSERT_TRUE(wait_for_coordinator(c, empty));
  ASSERT_EQ(commit(c, 9, empty, std::nullopt, {{topic, id}}, 5), std::vector<int16_t>{k_none});
  auto live = join_and_sync(ctx, gname("delete-live", v));
  ASSERT_TRUE(live);
  msg::delete_groups_request req;
  req.groups_names = {empty, live->group, gname("delete-missing", v)};
  auto resp = c.call<msg::delete_groups_response>(42, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->results.size(), 3u);
  std::map<std::string, int16_t> errors;
  for (const auto& r : resp->results) errors[r.group_id] = r.error_code;
  EXPECT_EQ(errors[empty], k_none);
  EXPECT_EQ(errors[live->group], k_non_empty_group);
  EXPECT_EQ(errors[gname("delete-missing", v)], k_group_id_not_found);
  EXPECT_EQ(committed(c, empty, topic), -1);
  EXPECT_EQ(heartbeat(c, *live), k_none);
}

void offset_delete_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = "offset-delete-topic-v" + std::to_string(v);
  const auto id = create_topic(c, topic, 1);
  const std::string group = gname("offset-delete", v);
  ASSERT_TRUE(wait_for_coordinator(c, group));
  ASSERT_EQ(commit(c, 9, group, std::nullopt, {{topic, id}}, 5), std::vector<int16_t>{k_none});
  ASSERT_EQ(committed(c, group, topic), 5);
  msg::offset_delete_request req;
  req.group_id = group;
  msg::offset_delete_request::offset_delete_request_topic t;
  t.name = topic;
  msg::offset_delete_request::offset_delete_request_partition p;
  p.partition_index = 0;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  auto resp = c.call<msg::offset_delete_response>(47, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].name, topic);
  ASSERT_EQ(resp->topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp->topics[0].partitions[0].error_code, k_none);
  EXPECT_EQ(committed(c, group, topic), -1);
  req.group_id = gname("offset-delete-missing", v);
  auto missing = c.call<msg::offset_delete_response>(47, v, req);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->error_code, k_group_id_not_found);
}

}  // namespace

std::vector<api_sweep> group_sweeps() {
  return {
      {8, "OffsetCommit", &offset_commit_sweep},   {9, "OffsetFetch", &offset_fetch_sweep},
      {10, "FindCoordinator", &find_coordinator_sweep}, {11, "JoinGroup", &join_group_sweep},
      {12, "Heartbeat", &heartbeat_sweep},         {13, "LeaveGroup", &leave_group_sweep},
      {14, "SyncGroup", &sync_group_sweep},        {15, "DescribeGroups", &describe_groups_sweep},
      {16, "ListGroups", &list_groups_sweep},      {42, "DeleteGroups", &delete_groups_sweep},
      {47, "OffsetDelete", &offset_delete_sweep},
  };
}

}  // namespace hw::testing::versions
