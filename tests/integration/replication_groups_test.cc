// A consumer group (KIP-848) with a classic member in it, on three combined
// nodes (RF 3 __consumer_offsets): when its coordinator's broker is
// SIGKILLed, the broker that leads the group's offsets partition next
// replays the group's records and carries on without a rebalance (same
// members, epochs and assignments; both members' next heartbeats are plain
// ones), and the group still goes back to the classic protocol when its
// consumer-protocol member leaves. Raw requests, so every epoch is seen.
#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <set>
#include <string>

#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/consumer_protocol.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/sync_group.h"
#include "consumer_heartbeats.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

using ReplicationGroupsIT = replication_cluster;

const std::string k_group = "migrated-group";
const std::string k_topic = "migrated-topic";
const std::string k_consumer = "consumer-member-0123456789";
constexpr int16_t k_rebalance_in_progress = 27;

bool coordinator_error(int16_t e) { return e == 14 || e == 15 || e == 16; }

std::vector<uint8_t> subscription_bytes() {
  msg::consumer_protocol_subscription s;
  s.topics = {k_topic};
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(0);
  s.encode(w, 0);
  return out;
}

std::set<int32_t> partitions_in(const std::vector<uint8_t>& assignment) {
  std::set<int32_t> out;
  if (assignment.empty()) return out;
  protocol::reader r(assignment);
  r.read_int16();
  msg::consumer_protocol_assignment a;
  a.decode(r, 0);
  for (const auto& tp : a.assigned_partitions) out.insert(tp.partitions.begin(), tp.partitions.end());
  return out;
}

// The two members as the test drives them.
struct members {
  int32_t consumer_epoch = 0;
  std::optional<msg::consumer_group_heartbeat_response::assignment_data> consumer_owns;
  std::string classic_id;
  int32_t generation = -1;
  std::set<int32_t> classic_owns;
};

// The error a response carries where a coordinator's move shows.
template <class Response>
int16_t error_of(const Response& r) {
  return r.error_code;
}
template <>
int16_t error_of(const msg::consumer_group_describe_response& r) {
  return r.groups.empty() ? 0 : r.groups[0].error_code;
}
template <>
int16_t error_of(const msg::describe_groups_response& r) {
  return r.groups.empty() ? 0 : r.groups[0].error_code;
}

class group_driver {
 public:
  // `at(i)`: node i's endpoint; `running(i)`: whether it runs (0-based).
  group_driver(std::function<endpoint(int)> at, std::function<bool(int)> running)
      : at_(std::move(at)), running_(std::move(running)) {}

  // The node coordinating the group now (1-based), once one answers.
  int coordinator() {
    int found = -1;
    wait_until(
        [&] {
          for (int i = 0; i < 3; ++i) {
            if (!running_(i)) continue;
            raw_client client(at_(i));
            if (!client.connected()) continue;
            auto f = client.find_coordinator(k_group, 0);
            if (f.first == 0 && f.second >= 1 && running_(f.second - 1)) {
              found = f.second;
              return true;
            }
          }
          return false;
        },
        60s);
    return found;
  }

  template <class Response, class Request>
  std::optional<Response> call(int16_t key, int16_t version, const Request& req) {
    std::optional<Response> out;
    wait_until(
        [&] {
          const int node = coordinator();
          if (node < 1) return false;
          raw_client client(at_(node - 1));
          if (!client.connected()) return false;
          out = client.call<Response>(key, version, req);
          return out && !coordinator_error(error_of(*out));
        },
        60s);
    return out;
  }

  msg::consumer_group_heartbeat_response consumer_heartbeat(members& m) {
    const auto req = m.consumer_epoch == 0 ? consumer_join(k_group, k_consumer, {k_topic})
                                           : consumer_beat(k_group, k_consumer, m.consumer_epoch, m.consumer_owns);
    auto resp = call<msg::consumer_group_heartbeat_response>(68, 1, req);
    if (!resp) return {};
    if (resp->error_code == 0) {
      m.consumer_epoch = resp->member_epoch;
      if (resp->assignment) m.consumer_owns = resp->assignment;
    }
    return *resp;
  }

  msg::join_group_request join_request(const std::string& member_id) {
    msg::join_group_request req;
    req.group_id = k_group;
    req.member_id = member_id;
    req.protocol_type = "consumer";
    req.session_timeout_ms = 30000;
    req.rebalance_timeout_ms = 30000;
    req.protocols.push_back({"range", subscription_bytes(), {}});
    return req;
  }

  // The classic member joins (again) and syncs; its generation and partitions.
  ::testing::AssertionResult classic_join_and_sync(members& m) {
    auto joined = call<msg::join_group_response>(11, 9, join_request(m.classic_id));
    if (joined && joined->error_code == 79) {  // MEMBER_ID_REQUIRED
      m.classic_id = joined->member_id;
      joined = call<msg::join_group_response>(11, 9, join_request(m.classic_id));
    }
    if (!joined || joined->error_code != 0)
      return ::testing::AssertionFailure() << "JoinGroup: " << (joined ? joined->error_code : -1);
    m.generation = joined->generation_id;
    msg::sync_group_request sync;
    sync.group_id = k_group;
    sync.member_id = m.classic_id;
    sync.generation_id = m.generation;
    sync.protocol_type = "consumer";
    sync.protocol_name = "range";
    if (joined->leader == m.classic_id) {
      // A classic group again: this member leads and assigns everything to itself.
      msg::consumer_protocol_assignment a;
      auto& tp = a.assigned_partitions.emplace_back();
      tp.topic = k_topic;
      tp.partitions = {0, 1, 2, 3};
      std::vector<uint8_t> bytes;
      protocol::writer w(bytes);
      w.write_int16(0);
      a.encode(w, 0);
      sync.assignments.push_back({m.classic_id, bytes, {}});
    }
    auto synced = call<msg::sync_group_response>(14, 5, sync);
    if (!synced || synced->error_code != 0)
      return ::testing::AssertionFailure() << "SyncGroup: " << (synced ? synced->error_code : -1);
    m.classic_owns = partitions_in(synced->assignment);
    return ::testing::AssertionSuccess();
  }

  int16_t classic_heartbeat(const members& m) {
    msg::heartbeat_request req;
    req.group_id = k_group;
    req.member_id = m.classic_id;
    req.generation_id = m.generation;
    auto resp = call<msg::heartbeat_response>(12, 4, req);
    return resp ? resp->error_code : -1;
  }

  std::optional<msg::consumer_group_describe_response::described_group> describe() {
    msg::consumer_group_describe_request req;
    req.group_ids = {k_group};
    auto resp = call<msg::consumer_group_describe_response>(69, 1, req);
    if (!resp || resp->groups.size() != 1) return std::nullopt;
    return resp->groups[0];
  }

 private:
  std::function<endpoint(int)> at_;
  std::function<bool(int)> running_;
};

size_t count(const std::optional<msg::consumer_group_heartbeat_response::assignment_data>& a) {
  size_t n = 0;
  if (a)
    for (const auto& tp : a->topic_partitions) n += tp.partitions.size();
  return n;
}

TEST_F(ReplicationGroupsIT, AMigratedGroupSurvivesItsCoordinatorsLossWithoutARebalance) {
  {
    raw_client client(at(0));
    auto created = client.create_topic(k_topic, 4, 3);
    ASSERT_TRUE(created && created->topics.size() == 1 && created->topics[0].error_code == 0) << logs();
  }
  group_driver g([this](int i) { return at(i); }, [this](int i) { return nodes[i]->running(); });
  members m;
  // A classic group of one member holding everything...
  ASSERT_TRUE(wait_until([&] { return g.classic_join_and_sync(m) && m.classic_owns.size() == 4; }, 60s)) << logs();
  // ...upgraded when a consumer-protocol member joins; the two settle on two
  // partitions each.
  auto first = g.consumer_heartbeat(m);
  ASSERT_EQ(first.error_code, 0) << first.error_message.value_or("") << logs();
  ASSERT_TRUE(wait_until(
      [&] {
        if (g.classic_heartbeat(m) == k_rebalance_in_progress && !g.classic_join_and_sync(m)) return false;
        if (g.consumer_heartbeat(m).error_code != 0) return false;
        return m.classic_owns.size() == 2 && count(m.consumer_owns) == 2 && g.classic_heartbeat(m) == 0;
      },
      60s))
      << "classic owns " << m.classic_owns.size() << ", consumer owns " << count(m.consumer_owns) << "\n" << logs();
  auto before = g.describe();
  ASSERT_TRUE(before && before->error_code == 0);
  ASSERT_EQ(before->members.size(), 2u);

  // The coordinator's broker dies; the next one has the same group.
  const int coordinator = g.coordinator();
  ASSERT_GE(coordinator, 1);
  ASSERT_EQ(nodes[coordinator - 1]->stop(SIGKILL), -SIGKILL);
  std::optional<msg::consumer_group_describe_response::described_group> after;
  ASSERT_TRUE(wait_until(
      [&] {
        after = g.describe();
        return after && after->error_code == 0 && g.coordinator() != coordinator;
      },
      60s))
      << logs();
  EXPECT_EQ(after->group_epoch, before->group_epoch);
  EXPECT_EQ(after->assignment_epoch, before->assignment_epoch);
  EXPECT_EQ(after->group_state, "Stable");
  ASSERT_EQ(after->members.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after->members[i].member_id, before->members[i].member_id);
    EXPECT_EQ(after->members[i].member_epoch, before->members[i].member_epoch);
    EXPECT_EQ(after->members[i].member_type, before->members[i].member_type);
    EXPECT_EQ(after->members[i].assignment, before->members[i].assignment);
  }
  // Both members carry on where they were: no rebalance.
  const int32_t epoch = m.consumer_epoch;
  auto beat = g.consumer_heartbeat(m);
  EXPECT_EQ(beat.error_code, 0);
  EXPECT_EQ(beat.member_epoch, epoch);
  EXPECT_EQ(g.classic_heartbeat(m), 0);

  // The consumer-protocol member leaves: a classic group again, which its
  // member rejoins and leads.
  m.consumer_epoch = -1;
  EXPECT_EQ(g.consumer_heartbeat(m).error_code, 0);
  ASSERT_TRUE(wait_until([&] { return g.classic_join_and_sync(m) && m.classic_owns.size() == 4; }, 60s)) << logs();
  msg::describe_groups_request dg;
  dg.groups = {k_group};
  auto described = g.call<msg::describe_groups_response>(15, 5, dg);
  ASSERT_TRUE(described && described->groups.size() == 1);
  EXPECT_EQ(described->groups[0].group_state, "Stable");
  EXPECT_EQ(described->groups[0].protocol_type, "consumer");
  EXPECT_EQ(described->groups[0].members.size(), 1u);
}

}  // namespace
}  // namespace hw::testing
