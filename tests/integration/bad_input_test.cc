// Bad input from a client, answered as Kafka 4.3 answers it (the error code,
// and nothing written or created), over raw requests built with the
// generated structs: invalid topic names and partition counts, too many
// replicas, oversized and corrupt batches, unknown topics without
// auto-creation, out-of-range fetches and stale leader epochs.

#include <signal.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "broker_process.h"
#include "protocol/error_code.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using protocol::error_code;
constexpr int16_t code(error_code e) { return static_cast<int16_t>(e); }
constexpr int16_t k_none = code(error_code::none);
constexpr int16_t k_offset_out_of_range = code(error_code::offset_out_of_range);
constexpr int16_t k_corrupt_message = code(error_code::corrupt_message);
constexpr int16_t k_unknown_topic_or_partition = code(error_code::unknown_topic_or_partition);
constexpr int16_t k_message_too_large = code(error_code::message_too_large);
constexpr int16_t k_invalid_topic = code(error_code::invalid_topic_exception);
constexpr int16_t k_invalid_partitions = code(error_code::invalid_partitions);
constexpr int16_t k_invalid_replication_factor = code(error_code::invalid_replication_factor);
constexpr int16_t k_fenced_leader_epoch = code(error_code::fenced_leader_epoch);
constexpr int16_t k_unknown_leader_epoch = code(error_code::unknown_leader_epoch);
constexpr int16_t k_invalid_timestamp = code(error_code::invalid_timestamp);
constexpr int16_t k_invalid_record = code(error_code::invalid_record);

bool topic_listed(raw_client& c, const std::string& name) {
  auto md = c.metadata(std::nullopt);
  if (!md) return false;
  for (auto& t : md->topics)
    if (t.name == name) return true;
  return false;
}

class BadInputIT : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& args = {}) {
    ASSERT_TRUE(broker.start(args)) << broker.log();
    client.emplace(broker.port());
    ASSERT_TRUE(client->connected());
  }
  broker_process broker;
  std::optional<raw_client> client;
};

TEST_F(BadInputIT, InvalidTopicNamesAreRefusedAndNothingIsCreated) {
  start();
  const std::vector<std::string> names{"", ".", "..", std::string(250, 'a'), "with space", "slash/name", "star*",
                                       "ümlaut"};
  for (const auto& name : names) {
    auto resp = client->create_topic(name, 1);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->topics.size(), 1u);
    EXPECT_EQ(resp->topics[0].error_code, k_invalid_topic) << "name '" << name << "'";
    EXPECT_TRUE(resp->topics[0].error_message && !resp->topics[0].error_message->empty()) << name;
  }
  auto md = client->metadata(std::nullopt);
  ASSERT_TRUE(md);
  EXPECT_TRUE(md->topics.empty()) << md->topics.size() << " topics exist, first: " << *md->topics[0].name;
  // The longest legal name is 249 characters.
  auto ok = client->create_topic(std::string(249, 'b'), 1);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->topics[0].error_code, k_none) << ok->topics[0].error_message.value_or("");
}

TEST_F(BadInputIT, ZeroOrNegativePartitionsAreInvalid) {
  start();
  for (int32_t n : {0, -2, -100}) {
    auto resp = client->create_topic("parts" + std::to_string(-n), n);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->topics[0].error_code, k_invalid_partitions) << n << " partitions";
  }
  EXPECT_FALSE(topic_listed(*client, "parts0"));
  EXPECT_FALSE(topic_listed(*client, "parts2"));
}

TEST_F(BadInputIT, MoreReplicasThanBrokersIsInvalid) {
  start();
  auto resp = client->create_topic("rf3", 1, 3);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->topics[0].error_code, k_invalid_replication_factor);
  EXPECT_FALSE(topic_listed(*client, "rf3"));
  for (int16_t rf : {0, -2}) {
    auto r = client->create_topic("rf" + std::to_string(rf), 1, rf);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->topics[0].error_code, k_invalid_replication_factor) << "replication factor " << rf;
  }
}

TEST_F(BadInputIT, RecordAboveMessageMaxBytesIsTooLarge) {
  start({"--override", "message.max.bytes=2000"});
  ASSERT_EQ(client->create_topic("big", 1)->topics[0].error_code, k_none);
  auto small = client->produce("big", 0, simple_batch(1, 100));
  ASSERT_TRUE(small);
  EXPECT_EQ(small->error_code, k_none);
  auto big = client->produce("big", 0, simple_batch(1, 5000));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->error_code, k_message_too_large);
  auto end = client->list_offset("big", 0, -1);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->offset, 1) << "the oversized batch was written";
}

TEST_F(BadInputIT, BatchWithWrongCrcIsCorrupt) {
  start();
  ASSERT_EQ(client->create_topic("crc", 1)->topics[0].error_code, k_none);
  auto batch = simple_batch(3, 20);
  batch.back() ^= 0x5a;  // a value byte: covered by the CRC, not by any length
  auto resp = client->produce("crc", 0, batch);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_corrupt_message);
  auto end = client->list_offset("crc", 0, -1);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->offset, 0);
}

TEST_F(BadInputIT, TimestampTooFarAheadIsInvalid) {
  start();
  ASSERT_EQ(client->create_topic("future", 1)->topics[0].error_code, k_none);
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  protocol::record_batch_builder b({});
  std::vector<uint8_t> value(10, 'v');
  b.append(now_ms, std::nullopt, protocol::bytes_view(value));
  b.append(now_ms + 2 * 3600 * 1000, std::nullopt, protocol::bytes_view(value));
  auto resp = client->produce("future", 0, b.finish());
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_invalid_timestamp);
  ASSERT_EQ(resp->record_errors.size(), 1u);
  EXPECT_EQ(resp->record_errors[0].batch_index, 1);
  EXPECT_EQ(client->list_offset("future", 0, -1)->offset, 0);
}

TEST_F(BadInputIT, EveryKeylessRecordOnACompactedTopicIsListed) {
  // Kafka's LogValidator reports every invalid record of the batch, each
  // with its index, and one partition error summing them up.
  start();
  ASSERT_EQ(client->create_topic("compacted", 1, 1, {{"cleanup.policy", "compact"}})->topics[0].error_code, k_none);
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  protocol::record_batch_builder b({});
  std::vector<uint8_t> value(10, 'v');
  std::vector<uint8_t> key(3, 'k');
  b.append(now_ms, std::nullopt, protocol::bytes_view(value));
  b.append(now_ms, protocol::bytes_view(key), protocol::bytes_view(value));
  b.append(now_ms, std::nullopt, protocol::bytes_view(value));
  b.append(now_ms, std::nullopt, protocol::bytes_view(value));
  auto resp = client->produce("compacted", 0, b.finish());
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_invalid_record);
  ASSERT_EQ(resp->record_errors.size(), 3u);
  EXPECT_EQ(resp->record_errors[0].batch_index, 0);
  EXPECT_EQ(resp->record_errors[1].batch_index, 2);
  EXPECT_EQ(resp->record_errors[2].batch_index, 3);
  for (const auto& e : resp->record_errors)
    EXPECT_EQ(e.batch_index_error_message.value_or(""),
              "Compacted topic cannot accept message without key in topic partition compacted-0");
  EXPECT_EQ(resp->error_message.value_or(""),
            "One or more records have been rejected due to 3 record errors in total, and only showing the first "
            "three errors at most: [RecordError(batchIndex=0, message='Compacted topic cannot accept message "
            "without key in topic partition compacted-0'), RecordError(batchIndex=2, message='Compacted topic "
            "cannot accept message without key in topic partition compacted-0'), RecordError(batchIndex=3, "
            "message='Compacted topic cannot accept message without key in topic partition compacted-0')]");
  EXPECT_EQ(client->list_offset("compacted", 0, -1)->offset, 0);
}

TEST_F(BadInputIT, UnknownTopicWithoutAutoCreation) {
  start({"--override", "auto.create.topics.enable=false"});
  auto md = client->metadata(std::vector<std::string>{"nope"}, true);
  ASSERT_TRUE(md);
  ASSERT_EQ(md->topics.size(), 1u);
  EXPECT_EQ(md->topics[0].error_code, k_unknown_topic_or_partition);
  auto p = client->produce("nope", 0, simple_batch(1));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->error_code, k_unknown_topic_or_partition);
  auto f = client->fetch("nope", 0, 0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->partition.error_code, k_unknown_topic_or_partition);
  EXPECT_FALSE(topic_listed(*client, "nope"));
}

TEST_F(BadInputIT, AutoCreationMakesTheTopic) {
  start({"--override", "num.partitions=3"});
  ASSERT_TRUE(wait_until(
      [&] {
        auto md = client->metadata(std::vector<std::string>{"auto"}, true);
        return md && md->topics.size() == 1 && md->topics[0].error_code == k_none &&
               md->topics[0].partitions.size() == 3;
      },
      10s));
}

TEST_F(BadInputIT, UnknownPartitionOfAKnownTopic) {
  start();
  ASSERT_EQ(client->create_topic("two", 2)->topics[0].error_code, k_none);
  auto p = client->produce("two", 7, simple_batch(1));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->error_code, k_unknown_topic_or_partition);
}

TEST_F(BadInputIT, FetchOutOfRange) {
  start();
  ASSERT_EQ(client->create_topic("range", 1)->topics[0].error_code, k_none);
  ASSERT_EQ(client->produce("range", 0, simple_batch(3))->error_code, k_none);
  auto at_end = client->fetch("range", 0, 3);
  ASSERT_TRUE(at_end);
  EXPECT_EQ(at_end->partition.error_code, k_none);
  EXPECT_EQ(at_end->partition.high_watermark, 3);
  for (int64_t offset : {4, 100, -5}) {
    auto f = client->fetch("range", 0, offset);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->partition.error_code, k_offset_out_of_range) << "offset " << offset;
    EXPECT_TRUE(f->records.empty());
    // As Kafka answers an errored partition: no offsets, empty (not null) records.
    EXPECT_FALSE(f->records_null) << "offset " << offset;
    EXPECT_EQ(f->partition.high_watermark, -1) << "offset " << offset;
    EXPECT_EQ(f->partition.last_stable_offset, -1) << "offset " << offset;
    EXPECT_EQ(f->partition.log_start_offset, -1) << "offset " << offset;
  }
  auto from0 = client->fetch("range", 0, 0);
  ASSERT_TRUE(from0);
  EXPECT_EQ(count_records(from0->records), 3);
}

TEST_F(BadInputIT, StaleLeaderEpochIsFencedAfterRestart) {
  start();
  ASSERT_EQ(client->create_topic("epochs", 1)->topics[0].error_code, k_none);
  ASSERT_EQ(client->produce("epochs", 0, simple_batch(2))->error_code, k_none);
  auto md = client->metadata(std::vector<std::string>{"epochs"});
  ASSERT_TRUE(md && md->topics.size() == 1 && md->topics[0].partitions.size() == 1);
  int32_t old_epoch = md->topics[0].partitions[0].leader_epoch;
  ASSERT_GE(old_epoch, 0);
  EXPECT_EQ(client->fetch("epochs", 0, 0, old_epoch)->partition.error_code, k_none);

  client.reset();
  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  std::filesystem::remove(broker.dir() + "/ports");
  start();

  int32_t new_epoch = -1;
  ASSERT_TRUE(wait_until(
      [&] {
        auto m = client->metadata(std::vector<std::string>{"epochs"});
        if (!m || m->topics.empty() || m->topics[0].partitions.empty()) return false;
        auto& p = m->topics[0].partitions[0];
        new_epoch = p.leader_epoch;
        return p.error_code == k_none && p.leader_id == 1;
      },
      30s))
      << broker.log();
  ASSERT_GT(new_epoch, old_epoch) << "a restart did not bump the leader epoch";

  auto stale = client->fetch("epochs", 0, 0, old_epoch);
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->partition.error_code, k_fenced_leader_epoch);
  EXPECT_TRUE(stale->records.empty());
  auto future = client->fetch("epochs", 0, 0, new_epoch + 1);
  ASSERT_TRUE(future);
  EXPECT_EQ(future->partition.error_code, k_unknown_leader_epoch);
  auto current = client->fetch("epochs", 0, 0, new_epoch);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->partition.error_code, k_none);
  EXPECT_EQ(count_records(current->records), 2);

  auto lo = client->list_offset("epochs", 0, -1, old_epoch);
  ASSERT_TRUE(lo);
  EXPECT_EQ(lo->error_code, k_fenced_leader_epoch);
}

TEST_F(BadInputIT, InvalidConfigurationAtStartupNamesTheKey) {
  struct bad {
    std::string setting, key;
  };
  for (const auto& b : {bad{"num.partitions=0", "num.partitions"}, bad{"message.max.bytes=big", "message.max.bytes"},
                        bad{"log.retention.ms=soon", "log.retention.ms"}}) {
    broker_process p;
    auto code = p.run_to_exit({"--override", b.setting});
    ASSERT_TRUE(code) << b.setting;
    EXPECT_EQ(*code, 1) << b.setting << "\n" << p.log();
    EXPECT_NE(p.log().find(b.key), std::string::npos) << p.log();
  }
}

}  // namespace
}  // namespace hw::testing
