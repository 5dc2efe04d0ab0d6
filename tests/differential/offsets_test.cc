// ListOffsets (every special timestamp, a real one, unknown topics),
// OffsetForLeaderEpoch and DeleteRecords, compared field by field.

#include "protocol/messages/delete_records.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/records/record_batch_builder.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

msg::list_offsets_request list_req(const std::string& topic, int64_t timestamp, int32_t partition = 0,
                                   int32_t current_leader_epoch = -1) {
  msg::list_offsets_request req;
  req.replica_id = -1;
  req.timeout_ms = 10000;
  msg::list_offsets_request::list_offsets_topic lt;
  lt.name = topic;
  msg::list_offsets_request::list_offsets_partition lp;
  lp.partition_index = partition;
  lp.current_leader_epoch = current_leader_epoch;
  lp.timestamp = timestamp;
  lt.partitions.push_back(lp);
  req.topics.push_back(lt);
  return req;
}

// Records at offsets 0-2 with timestamps 1000-1002, then 3-5 with 5000,
// 9000 (the maximum, at offset 4), 7000.
std::string topic_with_timestamps(twin& t, const std::string& stem) {
  const std::string topic = fresh_name(stem);
  create_topic(t, topic);
  produce(t, topic, batch_of("early", 3, false, 1000));
  protocol::record_batch_builder b(protocol::record_batch_options{});
  const std::string v = "late";
  auto bytes = protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  b.append(5000, std::nullopt, bytes);
  b.append(9000, std::nullopt, bytes);
  b.append(7000, std::nullopt, bytes);
  produce(t, topic, b.finish());
  return topic;
}

TEST_F(DifferentialTest, ListOffsetsSpecialTimestamps) {
  const std::string topic = topic_with_timestamps(t(), "lo");
  struct probe {
    const char* what;
    int64_t timestamp;
  };
  const probe probes[] = {{"latest (-1)", -1},           {"earliest (-2)", -2},       {"max timestamp (-3)", -3},
                          {"earliest local (-4)", -4},   {"latest tiered (-5)", -5},  {"timestamp 6000", 6000},
                          {"timestamp 1000", 1000},      {"timestamp after all", 10000}};
  for (int16_t v : {int16_t{1}, int16_t{7}, int16_t{9}, int16_t{11}})
    for (const auto& p : probes) {
      if (p.timestamp == -3 && v < 7) continue;  // -3 needs v7, -4 v8, -5 v9: older versions refuse them
      if (p.timestamp == -4 && v < 8) continue;
      if (p.timestamp == -5 && v < 9) continue;
      expect_same(t().call(std::string("ListOffsets ") + p.what, 2, v, list_req(topic, p.timestamp)));
    }
}

// A special timestamp at a version that predates it.
TEST_F(DifferentialTest, ListOffsetsTimestampTooNewForVersion) {
  const std::string topic = topic_with_timestamps(t(), "lo-old");
  expect_same(t().call("ListOffsets -3 at v6", 2, 6, list_req(topic, -3)));
  expect_same(t().call("ListOffsets -5 at v8", 2, 8, list_req(topic, -5)));
}

TEST_F(DifferentialTest, ListOffsetsErrors) {
  const std::string topic = topic_with_timestamps(t(), "lo-err");
  expect_same(t().call("ListOffsets unknown topic", 2, 7, list_req(fresh_name("lo-none"), -1)));
  expect_same(t().call("ListOffsets unknown partition", 2, 7, list_req(topic, -1, 4)));
  expect_same(t().call("ListOffsets future leader epoch", 2, 7, list_req(topic, -1, 0, 9)));
  expect_same(t().call("ListOffsets current leader epoch", 2, 7, list_req(topic, -1, 0, 0)));
}

msg::offset_for_leader_epoch_request epoch_req(const std::string& topic, int32_t leader_epoch,
                                               int32_t current_leader_epoch = -1, int32_t partition = 0) {
  msg::offset_for_leader_epoch_request req;
  req.replica_id = -1;
  msg::offset_for_leader_epoch_request::offset_for_leader_topic ot;
  ot.topic = topic;
  msg::offset_for_leader_epoch_request::offset_for_leader_partition op;
  op.partition = partition;
  op.current_leader_epoch = current_leader_epoch;
  op.leader_epoch = leader_epoch;
  ot.partitions.push_back(op);
  req.topics.push_back(ot);
  return req;
}

TEST_F(DifferentialTest, OffsetForLeaderEpoch) {
  const std::string topic = topic_with_timestamps(t(), "ofle");
  for (int16_t v : {2, 3, 4}) {
    expect_same(t().call("OffsetForLeaderEpoch epoch 0", 23, v, epoch_req(topic, 0)));
    expect_same(t().call("OffsetForLeaderEpoch future epoch", 23, v, epoch_req(topic, 5)));
    expect_same(t().call("OffsetForLeaderEpoch current epoch 0", 23, v, epoch_req(topic, 0, 0)));
    expect_same(t().call("OffsetForLeaderEpoch future current epoch", 23, v, epoch_req(topic, 0, 3)));
    expect_same(t().call("OffsetForLeaderEpoch unknown topic", 23, v, epoch_req(fresh_name("ofle-none"), 0)));
    expect_same(t().call("OffsetForLeaderEpoch unknown partition", 23, v, epoch_req(topic, 0, -1, 2)));
  }
}

msg::delete_records_request delete_req(const std::string& topic, int64_t offset, int32_t partition = 0) {
  msg::delete_records_request req;
  req.timeout_ms = 10000;
  msg::delete_records_request::delete_records_topic dt;
  dt.name = topic;
  msg::delete_records_request::delete_records_partition dp;
  dp.partition_index = partition;
  dp.offset = offset;
  dt.partitions.push_back(dp);
  req.topics.push_back(dt);
  return req;
}

TEST_F(DifferentialTest, DeleteRecords) {
  const std::string topic = topic_with_timestamps(t(), "dr");
  expect_same(t().call("DeleteRecords to 2", 21, 2, delete_req(topic, 2)));
  expect_same(t().call("DeleteRecords to 1 (below the start)", 21, 2, delete_req(topic, 1)));
  expect_same(t().call("DeleteRecords beyond the end", 21, 2, delete_req(topic, 100)));
  expect_same(t().call("DeleteRecords to the high watermark (-1)", 21, 0, delete_req(topic, -1)));
  expect_same(t().call("ListOffsets earliest after delete", 2, 9, list_req(topic, -2)));
  expect_same(t().call("ListOffsets earliest local after delete", 2, 9, list_req(topic, -4)));
  expect_same(t().call("DeleteRecords unknown topic", 21, 2, delete_req(fresh_name("dr-none"), 1)));
  expect_same(t().call("DeleteRecords unknown partition", 21, 2, delete_req(topic, 1, 3)));
}

}  // namespace
}  // namespace hw::testing::differential
