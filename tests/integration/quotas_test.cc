// Client quotas against the real binary: what AlterClientQuotas sets and
// removes is in the metadata log, so a restart (clean or a crash) replays
// it and DescribeClientQuotas answers the same afterwards; a client over
// its byte rates is throttled as Kafka throttles it; and what the broker's
// own fetch.max.bytes lets a fetch take.

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "raw_requests.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"

namespace hw::testing {
namespace {

constexpr int16_t k_describe = 48, k_alter = 49;

// (entity type, name or "<default>") of an entity, one per type.
using entity_key = std::map<std::string, std::string>;
using quota_table = std::map<entity_key, std::map<std::string, double>>;

msg::alter_client_quotas_request::entry_data entry(std::optional<std::string> user,
                                                    std::optional<std::string> client,
                                                    const std::string& key, std::optional<double> value) {
  msg::alter_client_quotas_request::entry_data e;
  if (user) {
    auto& u = e.entity.emplace_back();
    u.entity_type = "user";
    u.entity_name = *user == "<default>" ? std::nullopt : std::optional<std::string>(*user);
  }
  if (client) {
    auto& c = e.entity.emplace_back();
    c.entity_type = "client-id";
    c.entity_name = *client == "<default>" ? std::nullopt : std::optional<std::string>(*client);
  }
  auto& op = e.ops.emplace_back();
  op.key = key;
  op.remove = !value.has_value();
  op.value = value.value_or(0);
  return e;
}

// Every quota the broker describes (no components, not strict: all).
std::optional<quota_table> describe_all(raw_client& c) {
  msg::describe_client_quotas_request r;
  r.strict = false;
  auto described = c.call<msg::describe_client_quotas_response>(k_describe, 1, r);
  if (!described || described->error_code != 0 || !described->entries) return std::nullopt;
  quota_table out;
  for (const auto& e : *described->entries) {
    entity_key key;
    for (const auto& who : e.entity) key[who.entity_type] = who.entity_name.value_or("<default>");
    for (const auto& v : e.values) out[key][v.key] = v.value;
  }
  return out;
}

void restart_keeps_quotas(int sig) {
  broker_process b;
  ASSERT_TRUE(b.start()) << b.log();
  {
    raw_client c(b.port());
    msg::alter_client_quotas_request set;
    set.entries = {entry("alice", std::nullopt, "producer_byte_rate", 1048576),
                   entry("alice", "app-1", "consumer_byte_rate", 2097152),
                   entry("<default>", std::nullopt, "request_percentage", 50),
                   entry(std::nullopt, "<default>", "controller_mutation_rate", 10)};
    auto done = c.call<msg::alter_client_quotas_response>(k_alter, 1, set);
    ASSERT_TRUE(done);
    for (const auto& e : done->entries) EXPECT_EQ(e.error_code, 0) << e.error_message.value_or("");
    // One removed again: gone from the log's last word too.
    msg::alter_client_quotas_request remove;
    remove.entries = {entry(std::nullopt, "<default>", "controller_mutation_rate", std::nullopt)};
    auto removed = c.call<msg::alter_client_quotas_response>(k_alter, 1, remove);
    ASSERT_TRUE(removed);
    ASSERT_EQ(removed->entries.size(), 1u);
    EXPECT_EQ(removed->entries[0].error_code, 0);
  }
  const quota_table expected = {
      {{{"user", "alice"}}, {{"producer_byte_rate", 1048576}}},
      {{{"user", "alice"}, {"client-id", "app-1"}}, {{"consumer_byte_rate", 2097152}}},
      {{{"user", "<default>"}}, {{"request_percentage", 50}}},
  };
  {
    raw_client c(b.port());
    EXPECT_EQ(describe_all(c), expected);
  }
  ASSERT_TRUE(b.stop(sig, 30s).has_value()) << b.log();
  ASSERT_TRUE(b.start()) << b.log();
  raw_client again(b.port());
  EXPECT_EQ(describe_all(again), expected) << b.log();
}

// A call whose whole response is wanted (raw_client::produce and fetch keep
// only the partition, not the throttle), and when its answer came.
template <class Response, class Request>
std::optional<Response> timed_call(raw_client& c, int16_t key, int16_t version, const Request& req,
                                   std::chrono::steady_clock::time_point* answered) {
  auto r = c.call<Response>(key, version, req, 40s);
  *answered = std::chrono::steady_clock::now();
  return r;
}

std::chrono::milliseconds since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t);
}

// A client id's byte rates enforced as Kafka does (KIP-13, KIP-219): the
// request over the quota is answered at once with its throttle, the
// connection then answers nothing more until the throttle has passed, a
// consumer fetches no more than its quota's window at a time and gets an
// empty answer once over, and the metrics endpoint shows the measures under
// Kafka's names. 10 KiB/s against an 11 × 1 s window: 100 KiB pass before
// anything is throttled.
TEST(QuotasIT, AClientOverItsByteRatesIsThrottledMutedAndMeasured) {
  broker_process b;
  ASSERT_TRUE(b.start({"--override", "highwater.metrics.port=0"})) << b.log();
  raw_client admin(b.port());
  ASSERT_TRUE(admin.create_topic("quota-it", 1));
  ASSERT_TRUE(admin.create_topic("quota-it-produced", 1));
  msg::alter_client_quotas_request set;
  set.entries = {entry(std::nullopt, "hog", "producer_byte_rate", 10240)};
  auto& consumer_rate = set.entries[0].ops.emplace_back();
  consumer_rate.key = "consumer_byte_rate";
  consumer_rate.value = 10240;
  auto done = admin.call<msg::alter_client_quotas_response>(k_alter, 1, set);
  ASSERT_TRUE(done);
  for (const auto& e : done->entries) ASSERT_EQ(e.error_code, 0) << e.error_message.value_or("");
  // Once the broker describes them it enforces them.
  ASSERT_TRUE(wait_until([&] { return describe_all(admin).value_or(quota_table{}).size() == 1; }, 10s)) << b.log();
  // Three batches of 50 KB for the consumer, written by a client without
  // quota.
  for (int i = 0; i < 3; ++i) {
    auto written = admin.produce("quota-it", 0, simple_batch(49, 1000), 1);
    ASSERT_TRUE(written && written->error_code == 0);
  }

  raw_client producer(b.port());
  producer.use_client_id("hog");
  msg::produce_request req;
  req.acks = 1;
  req.timeout_ms = 10000;
  const std::vector<uint8_t> big = simple_batch(150, 1000);
  auto& t = req.topic_data.emplace_back();
  t.name = "quota-it-produced";
  auto& p = t.partition_data.emplace_back();
  p.index = 0;
  p.records = protocol::records_view(protocol::bytes_view(big));
  std::chrono::steady_clock::time_point answered;
  auto produced = timed_call<msg::produce_response>(producer, 0, k_produce_version, req, &answered);
  ASSERT_TRUE(produced);
  ASSERT_EQ(produced->responses.at(0).partition_responses.at(0).error_code, 0) << "a throttled request is served";
  // About 150 KB over the 10 s padded span: 15 KB/s, 46% over, so about 4.6 s.
  EXPECT_GT(produced->throttle_time_ms, 3000);
  EXPECT_LT(produced->throttle_time_ms, 6000);
  ASSERT_TRUE(producer.metadata(std::vector<std::string>{"quota-it"}));
  EXPECT_GE(since(answered).count(), produced->throttle_time_ms - 250) << "the connection was not muted";
  // The measures while they are live (11 s).
  const std::string hog = "{client_id=\"hog\",user=\"\"}";
  std::string text = scrape_metrics(b.port("METRICS"));
  EXPECT_GT(metric_sample(text, "kafka_server_produce_byte_rate" + hog).value_or(0), 10240.0) << text;
  EXPECT_EQ(metric_sample(text, "kafka_server_produce_throttle_time" + hog).value_or(-1),
            static_cast<double>(produced->throttle_time_ms))
      << text;

  raw_client consumer(b.port());
  consumer.use_client_id("hog");
  // The fetch asks for 16 MiB and is given at most what 100 KiB allow; with
  // the answer's headers that is a few bytes over, so it may first be
  // throttled for a few milliseconds (and answered empty), as Kafka's is.
  std::optional<msg::fetch_response> first;
  for (int attempt = 0; attempt < 10; ++attempt) {
    first = timed_call<msg::fetch_response>(consumer, 1, k_fetch_version, fetch_request_of("quota-it", 0, 0),
                                            &answered);
    ASSERT_TRUE(first);
    if (!first->responses.empty()) break;
    EXPECT_LT(first->throttle_time_ms, 100) << "only the headers went over";
  }
  ASSERT_FALSE(first->responses.empty()) << "the consumer never got its first 100 KiB";
  EXPECT_EQ(first->throttle_time_ms, 0);
  const auto& records = first->responses.at(0).partitions.at(0).records;
  ASSERT_FALSE(records.null);
  EXPECT_GT(records.size, 95'000u);
  EXPECT_LE(records.size, 102'400u);
  auto second = timed_call<msg::fetch_response>(consumer, 1, k_fetch_version,
                                                fetch_request_of("quota-it", 0, 98), &answered);
  ASSERT_TRUE(second);
  EXPECT_GT(second->throttle_time_ms, 3000) << "150 KB read over 10 s is over 10 KiB/s";
  EXPECT_LT(second->throttle_time_ms, 6000);
  EXPECT_TRUE(second->responses.empty()) << "a throttled fetch answers no data";
  ASSERT_TRUE(consumer.metadata(std::vector<std::string>{"quota-it"}));
  EXPECT_GE(since(answered).count(), second->throttle_time_ms - 250) << "the connection was not muted";

  text = scrape_metrics(b.port("METRICS"));
  // The throttled fetches were taken back: what counts is the first one's
  // bytes, over a span of 10 s (padded) to 11 s by now.
  const double fetched = metric_sample(text, "kafka_server_fetch_byte_rate" + hog).value_or(0);
  EXPECT_GT(fetched, static_cast<double>(records.size) / 11.5) << text;
  EXPECT_LT(fetched, static_cast<double>(records.size) / 10 + 200) << text;
  // The average of the throttles served: the seconds-long one and perhaps
  // the few milliseconds of a first try.
  const double throttle_time = metric_sample(text, "kafka_server_fetch_throttle_time" + hog).value_or(0);
  EXPECT_GE(throttle_time, second->throttle_time_ms / 2 - 100) << text;
  EXPECT_LE(throttle_time, second->throttle_time_ms) << text;
}

// request_percentage: the time the broker spends handling a client id's
// requests, as a percentage of one thread. A tiny quota throttles within a
// few Metadata requests, for at most one window (1 s), the connection
// muted meanwhile; another client id is not touched.
TEST(QuotasIT, RequestTimeOverItsPercentageIsThrottledAtMostOneWindow) {
  broker_process b;
  ASSERT_TRUE(b.start()) << b.log();
  raw_client admin(b.port());
  msg::alter_client_quotas_request set;
  set.entries = {entry(std::nullopt, "busy", "request_percentage", 0.001)};
  auto done = admin.call<msg::alter_client_quotas_response>(k_alter, 1, set);
  ASSERT_TRUE(done);
  ASSERT_EQ(done->entries.at(0).error_code, 0);
  ASSERT_TRUE(wait_until([&] { return describe_all(admin).value_or(quota_table{}).size() == 1; }, 10s)) << b.log();
  raw_client busy(b.port());
  busy.use_client_id("busy");
  msg::metadata_request all;
  all.topics.reset();
  std::chrono::steady_clock::time_point answered;
  int32_t throttle = 0;
  for (int i = 0; i < 200 && throttle == 0; ++i) {
    auto r = timed_call<msg::metadata_response>(busy, 3, k_metadata_version, all, &answered);
    ASSERT_TRUE(r);
    throttle = r->throttle_time_ms;
  }
  ASSERT_GT(throttle, 0) << "200 requests never went over 0.001% of a thread";
  EXPECT_LE(throttle, 1000) << "request-time throttles are capped at one window";
  ASSERT_TRUE(busy.metadata(std::vector<std::string>{}));
  EXPECT_GE(since(answered).count(), throttle - 100) << "the connection was not muted";
  raw_client other(b.port());
  other.use_client_id("other");
  auto r = other.call<msg::metadata_response>(3, k_metadata_version, all);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->throttle_time_ms, 0);
}

// fetch.max.bytes bounds every fetch whatever it asks (the first batch
// still goes whole, as always): 2 KiB lets two 1 KB batches of three through.
TEST(FetchLimitsIT, TheBrokersFetchMaxBytesBoundsAFetch) {
  broker_process b;
  ASSERT_TRUE(b.start({"--override", "fetch.max.bytes=2048"})) << b.log();
  raw_client c(b.port());
  ASSERT_TRUE(c.create_topic("fetch-limit", 1));
  for (int i = 0; i < 3; ++i) {
    auto written = c.produce("fetch-limit", 0, simple_batch(1, 900), 1);
    ASSERT_TRUE(written && written->error_code == 0);
  }
  auto got = c.call<msg::fetch_response>(1, k_fetch_version, fetch_request_of("fetch-limit", 0, 0));
  ASSERT_TRUE(got);
  const auto& records = got->responses.at(0).partitions.at(0).records;
  ASSERT_FALSE(records.null);
  EXPECT_GT(records.size, 1800u) << "two batches";
  EXPECT_LE(records.size, 2048u);
  // A first batch bigger than the bound still comes whole.
  auto big = c.produce("fetch-limit", 0, simple_batch(1, 5000), 1);
  ASSERT_TRUE(big && big->error_code == 0);
  auto whole = c.call<msg::fetch_response>(1, k_fetch_version, fetch_request_of("fetch-limit", 0, 3));
  ASSERT_TRUE(whole);
  EXPECT_GT(whole->responses.at(0).partitions.at(0).records.size, 5000u);
}

TEST(QuotasIT, QuotasSurviveACleanRestart) { restart_keeps_quotas(SIGTERM); }
TEST(QuotasIT, QuotasSurviveACrash) { restart_keeps_quotas(SIGKILL); }

}  // namespace
}  // namespace hw::testing
