// Client quotas enforced: a client id with a controller_mutation_rate
// creates, deletes and grows topics on Kafka 4.3.1 and on Highwater alike.
// Both let a request take the bucket's burst and more, refuse a topic
// asked once it is in debt with THROTTLING_QUOTA_EXCEEDED (no text, as
// Kafka) from the strict versions on (CreateTopics v6, DeleteTopics v5,
// CreatePartitions v3), serve older versions and throttle them, answer a
// throttle of the time the debt takes to pay back, and then mute the
// connection for that long (KIP-219): the next request on it is answered
// only once the throttle has passed.

#include <chrono>
#include <memory>

#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/metadata.h"
#include "broker_process.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_create_topics = 19, k_delete_topics = 20, k_metadata = 3, k_create_partitions = 37,
                  k_describe_quotas = 48, k_alter_quotas = 49;

// Sets (or, with nullopt, removes) one quota key of one named entity.
msg::alter_client_quotas_request quota(const std::string& type, const std::string& name, const std::string& key,
                                       std::optional<double> value) {
  msg::alter_client_quotas_request r;
  auto& e = r.entries.emplace_back();
  auto& d = e.entity.emplace_back();
  d.entity_type = type;
  d.entity_name = name;
  auto& o = e.ops.emplace_back();
  o.key = key;
  o.value = value.value_or(0);
  o.remove = !value;
  return r;
}

// Whether both brokers come to describe (or, want false, no longer
// describe) a quota of this one entity within 10 s.
bool described(twin& tw, const std::string& type, const std::string& name, bool want) {
  msg::describe_client_quotas_request describe;
  auto& component = describe.components.emplace_back();
  component.entity_type = type;
  component.match_type = 0;  // exact
  component.match = name;
  describe.strict = true;
  return wait_until(
      [&] {
        auto d = tw.call("wait", k_describe_quotas, 1, describe);
        for (side s : k_sides) {
          auto r = d.as<msg::describe_client_quotas_response>(s);
          if ((r.entries && r.entries->size() == 1) != want) return false;
        }
        return true;
      },
      10s);
}

msg::create_topics_request creating(const std::vector<std::pair<std::string, int32_t>>& topics) {
  msg::create_topics_request r;
  for (const auto& [name, partitions] : topics) {
    auto& t = r.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = 1;
  }
  r.timeout_ms = 30000;
  return r;
}

exchange named(int16_t key, int16_t version, std::string what) {
  exchange e;
  e.key = key;
  e.version = version;
  e.what = std::move(what);
  return e;
}

template <class Q>
answer send(twin& tw, side s, const exchange& e, const Q& request) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  request.encode(w, e.version);
  return tw.send(s, e.key, e.version, body, 30s);
}

TEST_F(DifferentialTest, ControllerMutationsBeyondTheRateAreRefusedAndTheConnectionMuted) {
  const std::string client = fresh_name("mutator");
  const std::string a = fresh_name("qa"), b = fresh_name("qb"), c = fresh_name("qc");
  // 2 partitions a second: a bucket of 22.
  expect_same(t().call("set the rate", k_alter_quotas, 1, quota("client-id", client, "controller_mutation_rate", 2)));
  // Both apply quota changes shortly after answering.
  ASSERT_TRUE(described(t(), "client-id", client, true));
  // Each broker in turn, every step on it back to back, so both buckets
  // go through the same states at the same times from their first use.
  const std::string d_topic = fresh_name("qd");
  exchange created = named(k_create_topics, 7, "strict create over the rate");
  exchange permissive = named(k_create_topics, 5, "permissive create in debt");
  exchange deleted = named(k_delete_topics, 6, "strict delete in debt");
  exchange grown = named(k_create_partitions, 3, "strict partition growth in debt");
  std::array<std::chrono::milliseconds, 2> muted{};
  for (side s : k_sides) {
    twin first, second, third, fourth;
    for (twin* tw : {&first, &second, &third, &fourth}) tw->use_client_id(client);
    created.answers[static_cast<int>(s)] = send(first, s, created, creating({{a, 20}, {b, 10}, {c, 1}}));
    const auto answered = std::chrono::steady_clock::now();
    // New connections are not muted; the bucket is in debt.
    permissive.answers[static_cast<int>(s)] = send(second, s, permissive, creating({{d_topic, 2}}));
    msg::delete_topics_request del;
    del.topics.emplace_back().name = d_topic;
    del.timeout_ms = 30000;
    deleted.answers[static_cast<int>(s)] = send(third, s, deleted, del);
    msg::create_partitions_request grow;
    auto& g = grow.topics.emplace_back();
    g.name = a;
    g.count = 21;
    g.assignments.reset();
    grow.timeout_ms = 30000;
    grown.answers[static_cast<int>(s)] = send(fourth, s, grown, grow);
    // The first connection was muted for its throttle.
    msg::metadata_request m;
    m.topics.emplace();
    exchange next = named(k_metadata, 12, "after the throttle");
    EXPECT_FALSE(send(first, s, next, m).closed) << side_name(s);
    muted[static_cast<int>(s)] =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - answered);
  }
  const allowlist throttle_within_bounds = {
      {"throttle_time_ms", allowed::rule::any_value, "timing; compared within bounds below"}};
  expect_same(created, throttle_within_bounds);
  expect_same(permissive, throttle_within_bounds);
  expect_same(deleted, throttle_within_bounds);
  expect_same(grown, throttle_within_bounds);
  for (side s : k_sides) {
    const auto r = created.as<msg::create_topics_response>(s);
    ASSERT_EQ(r.topics.size(), 3u) << side_name(s);
    EXPECT_EQ(r.topics[0].error_code, 0) << side_name(s);
    EXPECT_EQ(r.topics[1].error_code, 0) << side_name(s) << " a bucket not yet in debt lets it go below zero";
    EXPECT_EQ(r.topics[2].error_code, 89) << side_name(s) << " THROTTLING_QUOTA_EXCEEDED";
    EXPECT_EQ(r.topics[2].error_message, std::nullopt) << side_name(s) << " Kafka gives no text";
    // 8 partitions owed at 2 a second.
    EXPECT_GT(r.throttle_time_ms, 3000) << side_name(s);
    EXPECT_LE(r.throttle_time_ms, 4000) << side_name(s);
    EXPECT_GE(muted[static_cast<int>(s)].count(), r.throttle_time_ms - 250)
        << side_name(s) << " answered the next request before its throttle passed";
    // Served though in debt (an older version), and throttled for 10 owed.
    const auto p = permissive.as<msg::create_topics_response>(s);
    ASSERT_EQ(p.topics.size(), 1u) << side_name(s);
    EXPECT_EQ(p.topics[0].error_code, 0) << side_name(s);
    EXPECT_GT(p.throttle_time_ms, 4000) << side_name(s);
    EXPECT_LE(p.throttle_time_ms, 5000) << side_name(s);
    const auto del = deleted.as<msg::delete_topics_response>(s);
    ASSERT_EQ(del.responses.size(), 1u) << side_name(s);
    EXPECT_EQ(del.responses[0].error_code, 89) << side_name(s);
    EXPECT_GT(del.throttle_time_ms, 4000) << side_name(s);
    const auto grew = grown.as<msg::create_partitions_response>(s);
    ASSERT_EQ(grew.results.size(), 1u) << side_name(s);
    EXPECT_EQ(grew.results[0].error_code, 89) << side_name(s);
    EXPECT_GT(grew.throttle_time_ms, 4000) << side_name(s);
  }
  // Cleanup on an unthrottled connection, the quota first.
  expect_same(t().call("remove the rate", k_alter_quotas, 1, quota("client-id", client, "controller_mutation_rate", std::nullopt)));
  msg::delete_topics_request d;
  for (const auto& n : {a, b, d_topic}) d.topic_names.push_back(n);
  d.timeout_ms = 30000;
  auto cleanup = t().call("cleanup", k_delete_topics, 5, d);
  for (side s : k_sides) EXPECT_FALSE(cleanup.of(s).closed) << side_name(s);
}

// connection_creation_rate for 127.0.0.1: 5 a second over the padded
// 10 s span lets 50 new connections through at once; the ones after are
// never served and are closed within a window. Connections open before
// are not touched (the brokers' own, the twin's). The count is compared by
// range, not equality: a connection or two more is let through on either
// broker when the burst straddles a second, as the rate refills.
TEST_F(DifferentialTest, ConnectionsOverTheIpRateAreClosedUnserved) {
  expect_same(t().call("set the ip rate", k_alter_quotas, 1, quota("ip", "127.0.0.1", "connection_creation_rate", 5)));
  ASSERT_TRUE(described(t(), "ip", "127.0.0.1", true));
  constexpr int k_connections = 60;
  std::array<int, 2> served{};
  for (side s : k_sides) {
    std::vector<std::unique_ptr<kafka_socket>> sockets;
    for (int i = 0; i < k_connections; ++i) sockets.push_back(std::make_unique<kafka_socket>(broker_port(s)));
    for (int i = 0; i < k_connections; ++i) sockets[i]->send_frame(api_versions_frame(3, i + 1));
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    for (auto& sock : sockets) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (sock->read_frame(std::max(left, std::chrono::milliseconds(1)))) ++served[static_cast<int>(s)];
      else EXPECT_TRUE(sock->closed_by_peer(1s)) << side_name(s) << ": a refused connection was left open";
    }
  }
  for (side s : k_sides) {
    EXPECT_GE(served[static_cast<int>(s)], 50) << side_name(s) << " (Kafka served " << served[0] << ", Highwater " << served[1] << ")";
    EXPECT_LE(served[static_cast<int>(s)], 52) << side_name(s) << " (Kafka served " << served[0] << ", Highwater " << served[1] << ")";
  }
  expect_same(t().call("remove the ip rate", k_alter_quotas, 1, quota("ip", "127.0.0.1", "connection_creation_rate", std::nullopt)));
  EXPECT_TRUE(described(t(), "ip", "127.0.0.1", false));
}

}  // namespace
}  // namespace hw::testing::differential
