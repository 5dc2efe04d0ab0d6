// Fetch: in range, out of range (above the end, below the log start after
// DeleteRecords), unknown and deleted topics, leader epochs, topic ids,
// empty fetches and byte limits, compared field by field (records decoded
// batch by batch).

#include "broker_process.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_v = 12;  // the last version naming topics

struct fetch_spec {
  int64_t offset = 0;
  int32_t current_leader_epoch = -1;
  int32_t partition = 0;
  int32_t partition_max_bytes = 1 << 20;
  int32_t max_bytes = 16 << 20;
};

msg::fetch_request fetch_req(const std::string& topic, const fetch_spec& s, const protocol::uuid& id = {}) {
  msg::fetch_request req;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  req.max_bytes = s.max_bytes;
  req.session_epoch = -1;
  msg::fetch_request::fetch_topic ft;
  ft.topic = topic;
  ft.topic_id = id;
  msg::fetch_request::fetch_partition fp;
  fp.partition = s.partition;
  fp.current_leader_epoch = s.current_leader_epoch;
  fp.fetch_offset = s.offset;
  fp.partition_max_bytes = s.partition_max_bytes;
  ft.partitions.push_back(fp);
  req.topics.push_back(ft);
  return req;
}

// A topic holding batches of 3 and 2 records (offsets 0-2, 3-4).
std::string topic_with_two_batches(twin& t, const std::string& stem) {
  const std::string topic = fresh_name(stem);
  create_topic(t, topic);
  produce(t, topic, batch_of("first", 3));
  produce(t, topic, batch_of("second", 2, true));
  return topic;
}

TEST_F(DifferentialTest, FetchInRange) {
  const std::string topic = topic_with_two_batches(t(), "f-range");
  expect_same(t().call("Fetch from 0", 1, k_v, fetch_req(topic, {.offset = 0})));
  expect_same(t().call("Fetch from 4 (inside the second batch)", 1, k_v, fetch_req(topic, {.offset = 4})));
  expect_same(t().call("Fetch at the end", 1, k_v, fetch_req(topic, {.offset = 5})));
  expect_same(t().call("Fetch v4", 1, 4, fetch_req(topic, {.offset = 0})));
}

// An error answer for a partition still carries empty (not null) records.
TEST_F(DifferentialTest, FetchOutOfRangeAboveTheEnd) {
  const std::string topic = topic_with_two_batches(t(), "f-above");
  expect_same(t().call("Fetch above the end", 1, k_v, fetch_req(topic, {.offset = 100})));
}

TEST_F(DifferentialTest, FetchBelowLogStartAfterDeleteRecords) {
  const std::string topic = topic_with_two_batches(t(), "f-below");
  msg::delete_records_request dr;
  dr.timeout_ms = 10000;
  msg::delete_records_request::delete_records_topic dt;
  dt.name = topic;
  msg::delete_records_request::delete_records_partition dp;
  dp.partition_index = 0;
  dp.offset = 3;
  dt.partitions.push_back(dp);
  dr.topics.push_back(dt);
  expect_same(t().call("DeleteRecords to 3", 21, 2, dr));
  expect_same(t().call("Fetch below the log start", 1, k_v, fetch_req(topic, {.offset = 1})));
  expect_same(t().call("Fetch at the log start", 1, k_v, fetch_req(topic, {.offset = 3})));
}

TEST_F(DifferentialTest, FetchUnknownTopicAndPartition) {
  const std::string topic = topic_with_two_batches(t(), "f-unknown");
  expect_same(t().call("Fetch unknown topic", 1, k_v, fetch_req(fresh_name("f-none"), {})));
  expect_same(t().call("Fetch unknown partition", 1, k_v, fetch_req(topic, {.partition = 3})));
}

TEST_F(DifferentialTest, FetchDeletedTopic) {
  const std::string topic = fresh_name("f-deleted");
  const auto ids = create_topic(t(), topic);
  produce(t(), topic, batch_of("gone", 1));
  msg::delete_topics_request del;
  del.timeout_ms = 30000;
  del.topic_names = {topic};
  expect_same(t().call("DeleteTopics", 20, 5, del));
  // Kafka removes the partition asynchronously: wait until neither knows it.
  for (side s : k_sides) {
    EXPECT_TRUE(wait_until(
        [&] {
          msg::metadata_request md;
          msg::metadata_request::metadata_request_topic mt;
          mt.name = topic;
          md.topics->push_back(mt);
          md.allow_auto_topic_creation = false;
          std::vector<uint8_t> body;
          protocol::writer w(body);
          md.encode(w, 12);
          auto a = t().send(s, 3, 12, body);
          return a.error.empty() && a.as<msg::metadata_response>(12).topics.at(0).error_code == 3;
        },
        30s))
        << side_name(s) << " still knows " << topic;
  }
  expect_same(t().call("Fetch deleted topic by name", 1, k_v, fetch_req(topic, {})));
  expect_same(t().call_each("Fetch deleted topic by id", 1, 13, [&](side s) {
    return fetch_req("", {}, ids[static_cast<int>(s)]);
  }));
}

TEST_F(DifferentialTest, FetchLeaderEpochs) {
  const std::string topic = topic_with_two_batches(t(), "f-epoch");
  expect_same(t().call("Fetch current epoch 0", 1, k_v, fetch_req(topic, {.current_leader_epoch = 0})));
  expect_same(t().call("Fetch future epoch", 1, k_v, fetch_req(topic, {.current_leader_epoch = 7})));
  // A stale epoch needs a leader change, which a single node never has:
  // epoch 0 is the oldest there is (see FINDINGS.md).
}

TEST_F(DifferentialTest, FetchByTopicId) {
  const std::string topic = fresh_name("f-id");
  const auto ids = create_topic(t(), topic);
  produce(t(), topic, batch_of("byid", 2));
  for (int16_t v : {13, 17, 18})
    expect_same(t().call_each("Fetch by id", 1, v, [&](side s) { return fetch_req("", {}, ids[static_cast<int>(s)]); }));
  protocol::uuid unknown;
  unknown.bytes[7] = 0x33;
  expect_same(t().call("Fetch unknown topic id", 1, 13, fetch_req("", {}, unknown)));
}

TEST_F(DifferentialTest, FetchEmpty) {
  msg::fetch_request req;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  req.session_epoch = -1;
  expect_same(t().call("Fetch nothing", 1, k_v, req));
  expect_same(t().call("Fetch nothing v18", 1, 18, req));
}

TEST_F(DifferentialTest, FetchByteLimits) {
  const std::string topic = fresh_name("f-limits");
  create_topic(t(), topic);
  for (int i = 0; i < 3; ++i) produce(t(), topic, batch_of(std::string(400, 'a' + i), 2));
  // A partition limit below the first batch: the first batch comes whole anyway.
  expect_same(t().call("Fetch partition_max_bytes 100", 1, k_v, fetch_req(topic, {.partition_max_bytes = 100})));
  // A partition limit inside the second batch.
  expect_same(t().call("Fetch partition_max_bytes 1200", 1, k_v, fetch_req(topic, {.partition_max_bytes = 1200})));
  // The response limit below the partition limit.
  expect_same(t().call("Fetch max_bytes 1000", 1, k_v,
                       fetch_req(topic, {.partition_max_bytes = 1 << 20, .max_bytes = 1000})));
}

}  // namespace
}  // namespace hw::testing::differential
