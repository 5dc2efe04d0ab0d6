// Client quotas' measures and decisions, computed as Kafka's metrics
// library and quota managers compute them: Rate's padded span, the
// throttle for an excess, the entity order, shared measures, the token
// bucket of controller mutations, and connection rates per IP.

#include <gtest/gtest.h>

#include <cmath>

#include "broker/quota/client_quotas.h"
#include "broker/quota/request_quotas.h"
#include "protocol/messages/create_topics.h"

namespace hw::broker::quota {
namespace {

constexpr window_config kafka_defaults{11, 1000};

using part = entity::part;

entity user(std::string name) { return {part::named, std::move(name), part::none, {}}; }
entity client(std::string name) { return {part::none, {}, part::named, std::move(name)}; }
entity user_client(std::string u, std::string c) { return {part::named, std::move(u), part::named, std::move(c)}; }
entity default_user() { return {part::fallback, {}, part::none, {}}; }
entity default_client() { return {part::none, {}, part::fallback, {}}; }
entity user_default_client(std::string u) { return {part::named, std::move(u), part::fallback, {}}; }
entity default_user_client(std::string c) { return {part::fallback, {}, part::named, std::move(c)}; }
entity default_user_default_client() { return {part::fallback, {}, part::fallback, {}}; }

TEST(SampledStat, AFirstBurstIsMeasuredOverTheWholePaddedSpan) {
  sampled_stat s;
  s.record(kafka_defaults, 1000, 5'000);
  // Nothing older: the span is padded to samples - 1 = 10 full windows.
  EXPECT_EQ(s.window_size(kafka_defaults, 5'000), 10'000);
  EXPECT_DOUBLE_EQ(s.rate(kafka_defaults, 5'000), 100.0);
  // 2.5 s later: 2 full windows passed, padded by 8 more.
  EXPECT_EQ(s.window_size(kafka_defaults, 7'500), 10'500);
  // The simple rate (replication quotas) pads to one window only.
  EXPECT_DOUBLE_EQ(s.simple_rate(kafka_defaults, 5'000), 1000.0);
}

TEST(SampledStat, WindowsRotateAndExpire) {
  sampled_stat s;
  for (int64_t t = 0; t < 20'000; t += 100) s.record(kafka_defaults, 100, t);
  // Eleven windows live just before 20 s (from 9 s), ten values in each.
  EXPECT_EQ(s.count(kafka_defaults, 19'999), 110);
  // At 20 s the one from 9 s has expired (measuring resets it): 10 s of
  // 1000 a second.
  EXPECT_DOUBLE_EQ(s.rate(kafka_defaults, 20'000), 1000.0);
  EXPECT_EQ(s.count(kafka_defaults, 20'000), 100);
  // Once every window is older than 11 s nothing counts.
  EXPECT_DOUBLE_EQ(s.total(kafka_defaults, 40'000), 0.0);
  EXPECT_TRUE(std::isnan(s.average(kafka_defaults, 40'000)));
}

TEST(SampledStat, AverageIsOverTheValuesRecorded) {
  sampled_stat s;
  s.record({2, 30'000}, 100, 0);
  s.record({2, 30'000}, 300, 10);
  EXPECT_DOUBLE_EQ(s.average({2, 30'000}, 20), 200.0);
}

TEST(TokenBucket, StartsFullAndRefillsAtTheQuota) {
  token_bucket b;
  // quota 2 a second, 11 one-second windows: a burst of 22.
  EXPECT_DOUBLE_EQ(b.tokens(kafka_defaults, 2, 1'000), 22.0);
  b.record(kafka_defaults, 2, 30, 1'000);
  EXPECT_DOUBLE_EQ(b.tokens(kafka_defaults, 2, 1'000), -8.0);
  EXPECT_DOUBLE_EQ(b.tokens(kafka_defaults, 2, 3'000), -4.0);
  // Never above the burst.
  EXPECT_DOUBLE_EQ(b.tokens(kafka_defaults, 2, 100'000), 22.0);
}

TEST(ClientQuotaManager, DisabledUntilAQuotaOfItsKindIsSet) {
  client_quota_manager m(kind::produce, kafka_defaults);
  EXPECT_FALSE(m.enabled());
  EXPECT_EQ(m.record("alice", "c", 1e12, 0), 0);
  EXPECT_FALSE(m.max_value_in_window("alice", "c"));
  EXPECT_TRUE(m.metrics(0).empty());
  m.set_quotas({{user("bob"), 100}});
  EXPECT_TRUE(m.enabled());
  // alice has no quota: measured, never throttled.
  EXPECT_EQ(m.record("alice", "c", 1e12, 0), 0);
  // Removing every quota leaves the kind enabled, as Kafka's flags stay.
  m.set_quotas({});
  EXPECT_TRUE(m.enabled());
}

TEST(ClientQuotaManager, ThrottleIsTheExcessShareOfTheSpan) {
  client_quota_manager m(kind::produce, kafka_defaults);
  m.set_quotas({{client("hog"), 500}});
  // 6000 bytes at once: 600 B/s over the padded 10 s, 20% over 500 B/s,
  // so 20% of the 10 s span.
  EXPECT_EQ(m.record("ANONYMOUS", "hog", 6000, 1'000), 2000);
  // Under the bound nothing is throttled.
  client_quota_manager n(kind::produce, kafka_defaults);
  n.set_quotas({{client("hog"), 500}});
  EXPECT_EQ(n.record("ANONYMOUS", "hog", 5000, 1'000), 0);
  // Another client id is not measured against hog's quota.
  EXPECT_EQ(m.record("ANONYMOUS", "other", 1e9, 1'000), 0);
}

TEST(ClientQuotaManager, ASteadyOverloadIsThrottledInProportion) {
  client_quota_manager m(kind::fetch, kafka_defaults);
  m.set_quotas({{user("alice"), 1000}});
  int32_t throttle = 0;
  // 2000 B/s for 20 s: twice the quota. At 19.9 s eleven windows are live
  // (from 9 s: 10.9 s, 22000 B), 2018 B/s: 101.8% over, of 10.9 s.
  for (int64_t t = 0; t < 20'000; t += 100) throttle = m.record("alice", "x", 200, t);
  EXPECT_EQ(throttle, 11'100);
}

TEST(ClientQuotaManager, RequestTimeThrottlesAreCappedAtOneWindow) {
  client_quota_manager m(kind::request, kafka_defaults);
  m.set_quotas({{default_client(), 1}});
  // 1% of a thread allowed, 50% used: far over, capped at one window.
  EXPECT_EQ(m.record("u", "c", 500, 1'000), 1000);
}

TEST(ClientQuotaManager, UnrecordTakesAFetchBack) {
  client_quota_manager m(kind::fetch, kafka_defaults);
  m.set_quotas({{client("c"), 500}});
  EXPECT_GT(m.record("u", "c", 6000, 1'000), 0);
  m.unrecord("u", "c", 6000, 1'000);
  EXPECT_EQ(m.record("u", "c", 100, 1'000), 0);
}

TEST(ClientQuotaManager, MaxValueInWindowIsTheBoundOverTheMeasuredSpan) {
  client_quota_manager m(kind::fetch, kafka_defaults);
  m.set_quotas({{client("c"), 1024}});
  EXPECT_DOUBLE_EQ(*m.max_value_in_window("u", "c"), 10 * 1024.0);
  EXPECT_FALSE(m.max_value_in_window("u", "other"));
}

// The bound a pair gets: max_value_in_window is ten times it.
double bound_of(client_quota_manager& m, const std::string& u, const std::string& c) {
  auto v = m.max_value_in_window(u, c);
  return v ? *v / 10 : -1;
}

TEST(ClientQuotaManager, EntitiesApplyInKafkasOrder) {
  client_quota_manager m(kind::produce, kafka_defaults);
  std::map<entity, double> q = {{user_client("alice", "app"), 1},  {user_default_client("alice"), 2},
                                {user("alice"), 3},                {default_user_client("app"), 4},
                                {default_user_default_client(), 5}, {default_user(), 6},
                                {client("app"), 7},                {default_client(), 8}};
  m.set_quotas(q);
  EXPECT_EQ(bound_of(m, "alice", "app"), 1);
  EXPECT_EQ(bound_of(m, "alice", "other"), 2);
  EXPECT_EQ(bound_of(m, "bob", "app"), 4);
  EXPECT_EQ(bound_of(m, "bob", "other"), 5);
  q.erase(user_default_client("alice"));
  m.set_quotas(q);
  EXPECT_EQ(bound_of(m, "alice", "other"), 3);
  q.erase(default_user_default_client());
  m.set_quotas(q);
  EXPECT_EQ(bound_of(m, "bob", "other"), 6);
  q.erase(default_user());
  q.erase(user("alice"));
  q.erase(default_user_client("app"));
  m.set_quotas(q);
  EXPECT_EQ(bound_of(m, "bob", "app"), 7);
  EXPECT_EQ(bound_of(m, "bob", "other"), 8);
}

TEST(ClientQuotaManager, ClientIdsOfAUserWithAUserQuotaShareItsMeasure) {
  client_quota_manager m(kind::produce, kafka_defaults);
  m.set_quotas({{user("alice"), 500}});
  EXPECT_EQ(m.record("alice", "one", 3000, 1'000), 0);
  // Together 6000 B: the second client id is throttled for both.
  EXPECT_EQ(m.record("alice", "two", 3000, 1'000), 2000);
  auto rows = m.metrics(1'000);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tags, (metric_tags{"alice", ""}));
  EXPECT_DOUBLE_EQ(rows[0].value, 600.0);
  // A client-id quota measures per client id, user tag empty.
  client_quota_manager c(kind::produce, kafka_defaults);
  c.set_quotas({{client("one"), 500}});
  c.record("alice", "one", 3000, 1'000);
  c.record("bob", "one", 3000, 1'000);
  rows = c.metrics(1'000);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tags, (metric_tags{"", "one"}));
}

TEST(ClientQuotaManager, ThrottleTimeIsAveragedPerMeasure) {
  client_quota_manager m(kind::produce, kafka_defaults);
  m.set_quotas({{client("c"), 500}});
  m.record("u", "c", 1, 0);
  EXPECT_TRUE(std::isnan(m.metrics(0).at(0).throttle_time));
  m.record_throttle("u", "c", 100, 0);
  m.record_throttle("u", "c", 300, 10);
  EXPECT_DOUBLE_EQ(m.metrics(20).at(0).throttle_time, 200.0);
}

TEST(ClientQuotaManager, StrictMutationsAreRefusedOnlyOnceInDebt) {
  client_quota_manager m(kind::controller_mutation, kafka_defaults);
  m.set_quotas({{user("alice"), 2}});
  // A burst of 22 partitions is allowed, and the request that goes past it
  // too: strict refuses only a bucket already in debt.
  EXPECT_FALSE(m.record_mutation("alice", "c", 20, true, 1'000).refused);
  auto second = m.record_mutation("alice", "c", 10, true, 1'000);
  EXPECT_FALSE(second.refused);
  EXPECT_EQ(second.throttle_ms, 0);
  // 8 owed at 2 a second: 4 s.
  auto third = m.record_mutation("alice", "c", 1, true, 1'000);
  EXPECT_TRUE(third.refused);
  EXPECT_EQ(third.throttle_ms, 4000);
  // Permissive: taken anyway, throttled for the debt.
  auto permissive = m.record_mutation("alice", "c", 2, false, 2'000);
  EXPECT_FALSE(permissive.refused);
  EXPECT_EQ(permissive.throttle_ms, 4000);  // 8 - 2 + 2 owed
  // Someone without a quota is never refused.
  EXPECT_FALSE(m.record_mutation("bob", "c", 1000, true, 2'000).refused);
}

TEST(ConnectionRateQuotas, AnIpOverItsRateIsRefusedAndNotCounted) {
  connection_rate_quotas q(kafka_defaults);
  EXPECT_EQ(q.on_connection("127.0.0.1", 0), 0);
  q.set_quotas({{std::string("127.0.0.1"), 2}});
  // 2 a second over a padded 10 s span: 20 at once pass, the 21st is
  // throttled (2.1/s: 5% over, 5% of 10 s).
  for (int i = 0; i < 20; ++i) ASSERT_EQ(q.on_connection("127.0.0.1", 1'000), 0) << i;
  EXPECT_EQ(q.on_connection("127.0.0.1", 1'000), 500);
  // Not counted: the next is refused the same way.
  EXPECT_EQ(q.on_connection("127.0.0.1", 1'000), 500);
  // Another IP has no quota.
  EXPECT_EQ(q.on_connection("10.0.0.1", 1'000), 0);
  // The default applies to every IP without its own; throttles are capped
  // at one window.
  q.set_quotas({{std::nullopt, 1}});
  for (int i = 0; i < 10; ++i) ASSERT_EQ(q.on_connection("10.0.0.2", 1'000), 0) << i;
  for (int i = 0; i < 100; ++i) q.on_connection("10.0.0.2", 1'000);
  EXPECT_EQ(q.on_connection("10.0.0.2", 1'000), 1000);
}

TEST(ClientQuotas, TheImagesEntitiesReachEachKind) {
  client_quotas all(kafka_defaults);
  controller::client_quota_table table;
  table[{{"user", "alice"}}] = {{"producer_byte_rate", 1000}, {"consumer_byte_rate", 2000}};
  table[{{"client-id", std::nullopt}}] = {{"request_percentage", 50}};
  table[{{"user", std::nullopt}, {"client-id", "app"}}] = {{"controller_mutation_rate", 3}};
  table[{{"ip", "127.0.0.1"}}] = {{"connection_creation_rate", 1}};
  all.update(table);
  EXPECT_EQ(bound_of(all.of(kind::produce), "alice", "x"), 1000);
  EXPECT_EQ(bound_of(all.of(kind::fetch), "alice", "x"), 2000);
  EXPECT_EQ(bound_of(all.of(kind::request), "bob", "x"), 50);
  EXPECT_EQ(bound_of(all.of(kind::controller_mutation), "bob", "app"), 3);
  EXPECT_TRUE(all.connections().enabled());
}

}  // namespace
}  // namespace hw::broker::quota

namespace hw::broker::quota {
namespace {

TEST(ResponseThrottle, WrittenWhereTheResponseBodyStartsWithIt) {
  protocol::msg::create_topics_response r;
  r.topics.emplace_back().name = "t";
  // CreateTopics v7 is flexible (response header v1); its body starts with
  // ThrottleTimeMs.
  response_frame f = encode_response(42, 1, r, 7);
  ASSERT_EQ(response_throttle(f, 19, 7, 1), 0);
  set_response_throttle(f, 19, 7, 1, 1234);
  EXPECT_EQ(response_throttle(f, 19, 7, 1), 1234);
  protocol::reader in(protocol::bytes_view(f.bytes.data() + 4 + 5, f.bytes.size() - 9));
  protocol::msg::create_topics_response back;
  back.decode(in, 7);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(back.throttle_time_ms, 1234);
  ASSERT_EQ(back.topics.size(), 1u);
  EXPECT_EQ(back.topics[0].name, "t");
  // Produce carries it last: not written here; DeleteTopics v0 has none.
  EXPECT_FALSE(response_throttle(f, 0, 9, 1));
  EXPECT_FALSE(response_throttle(f, 20, 0, 0));
}

}  // namespace
}  // namespace hw::broker::quota
