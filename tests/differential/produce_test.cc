// Produce: accepted batches at every acks, unknown topics and partitions,
// and every kind of invalid batch Kafka refuses, compared field by field
// (record_errors included).

#include "protocol/messages/api_versions.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

msg::produce_request produce_req(const std::string& topic, const std::vector<uint8_t>& batch, int16_t acks = -1,
                                 int32_t partition = 0) {
  msg::produce_request req;
  req.transactional_id.reset();
  req.acks = acks;
  req.timeout_ms = 10000;
  msg::produce_request::topic_produce_data td;
  td.name = topic;
  msg::produce_request::partition_produce_data pd;
  pd.index = partition;
  pd.records = protocol::records_view(protocol::bytes_view(batch));
  td.partition_data.push_back(pd);
  req.topic_data.push_back(td);
  return req;
}

constexpr int16_t k_v = 9;  // flexible, by name

TEST_F(DifferentialTest, ProduceAcceptedAtAcksOneAndAll) {
  const std::string topic = fresh_name("p-ok");
  create_topic(t(), topic);
  const auto b1 = batch_of("a", 3), b2 = batch_of("b", 2, true);
  expect_same(t().call("Produce acks -1", 0, k_v, produce_req(topic, b1, -1)));
  expect_same(t().call("Produce acks 1", 0, k_v, produce_req(topic, b2, 1)));
  expect_same(t().call("Produce v3", 0, 3, produce_req(topic, b1, -1)));
  expect_same(t().call("Produce v12", 0, 12, produce_req(topic, b2, -1)));
}

// acks 0: no answer; the next request on the connection is answered next,
// and the batch was appended.
TEST_F(DifferentialTest, ProduceAcksZero) {
  const std::string topic = fresh_name("p-acks0");
  create_topic(t(), topic);
  const auto batch = batch_of("z", 4);
  auto req = produce_req(topic, batch, 0);
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, k_v);
  for (side s : k_sides) {
    ASSERT_TRUE(t().socket(s).send_frame(request_frame(0, k_v, 1000, body, "differential"))) << side_name(s);
  }
  msg::api_versions_request av;
  auto e = t().call("ApiVersions after acks 0", 18, 3, av);
  for (side s : k_sides) EXPECT_TRUE(e.of(s).error.empty()) << side_name(s) << ": " << e.of(s).error;
  msg::fetch_request f;
  f.max_wait_ms = 0;
  f.min_bytes = 1;
  f.max_bytes = 1 << 20;
  msg::fetch_request::fetch_topic ft;
  ft.topic = topic;
  msg::fetch_request::fetch_partition fp;
  fp.partition_max_bytes = 1 << 20;
  ft.partitions.push_back(fp);
  f.topics.push_back(ft);
  expect_same(t().call("Fetch after acks 0", 1, 12, f));
}

TEST_F(DifferentialTest, ProduceUnknownTopicAndPartition) {
  const std::string topic = fresh_name("p-part");
  create_topic(t(), topic);
  const auto batch = batch_of("u", 1);
  expect_same(t().call("Produce unknown topic", 0, k_v, produce_req(fresh_name("p-unknown"), batch)));
  expect_same(t().call("Produce unknown partition", 0, k_v, produce_req(topic, batch, -1, 7)));
  expect_same(t().call("Produce acks 2", 0, k_v, produce_req(topic, batch, 2)));
}

// Produce v13 names topics by id: an unknown one.
TEST_F(DifferentialTest, ProduceUnknownTopicId) {
  const auto batch = batch_of("id", 1);
  auto req = produce_req("", batch);
  req.topic_data[0].topic_id.bytes[2] = 9;
  expect_same(t().call("Produce v13 unknown id", 0, 13, req));
}

// Damaged batches: one change each to a valid batch.
TEST_F(DifferentialTest, ProduceCorruptBatches) {
  const std::string topic = fresh_name("p-corrupt");
  create_topic(t(), topic);
  const auto good = batch_of("c", 3);

  auto bad_crc = good;
  bad_crc.back() ^= 0x01;  // inside the last value: the CRC no longer matches
  expect_same(t().call("Produce corrupt CRC", 0, k_v, produce_req(topic, bad_crc)));

  auto magic1 = good;
  magic1[protocol::batch_layout::magic] = 1;
  expect_same(t().call("Produce magic 1", 0, k_v, produce_req(topic, magic1)));

  auto magic3 = good;
  magic3[protocol::batch_layout::magic] = 3;
  expect_same(t().call("Produce magic 3", 0, k_v, produce_req(topic, magic3)));

  auto count = good;
  count[protocol::batch_layout::record_count + 3] = 5;  // 5 records declared, 3 present
  protocol::mutable_record_batch_view(count).update_crc();
  expect_same(t().call("Produce record count mismatch", 0, k_v, produce_req(topic, count)));

  auto codec = good;
  codec[protocol::batch_layout::attributes + 1] |= 0x05;  // codec id 5 does not exist
  protocol::mutable_record_batch_view(codec).update_crc();
  // Kafka fails on the unknown codec id inside its validator and answers
  // UNKNOWN_SERVER_ERROR; UNSUPPORTED_COMPRESSION_TYPE (Highwater's) is the
  // code the protocol defines for it. A client gives up on either.
  expect_same(t().call("Produce unknown codec", 0, k_v, produce_req(topic, codec)),
              {{"*partition_responses[0].error_code", allowed::rule::any_value,
                "Kafka answers an unknown codec id with UNKNOWN_SERVER_ERROR (an internal failure)"},
               {"*partition_responses[0].error_message", allowed::rule::any_value, "follows the error code"}});

  std::vector<uint8_t> truncated(good.begin(), good.end() - 5);
  expect_same(t().call("Produce truncated batch", 0, k_v, produce_req(topic, truncated)));

  auto two = good;
  two.insert(two.end(), good.begin(), good.end());  // two batches in one Produce (v3+ allows one)
  expect_same(t().call("Produce two batches", 0, k_v, produce_req(topic, two)));
}

// Keyless records on a compacted topic: Kafka lists every one of them in
// record_errors.
TEST_F(DifferentialTest, ProduceKeylessOnCompactedTopic) {
  const std::string topic = fresh_name("p-compact");
  create_topic(t(), topic, 1, {{"cleanup.policy", "compact"}});
  protocol::record_batch_builder b(protocol::record_batch_options{});
  const std::string k = "key", v = "value";
  auto bytes = [](const std::string& s) { return protocol::bytes_view(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  b.append(1700000000000, std::nullopt, bytes(v));
  b.append(1700000000001, bytes(k), bytes(v));
  b.append(1700000000002, std::nullopt, bytes(v));
  b.append(1700000000003, std::nullopt, bytes(v));
  expect_same(t().call("Produce keyless on compacted", 0, k_v, produce_req(topic, b.finish())));
}

TEST_F(DifferentialTest, ProduceTooLarge) {
  const std::string topic = fresh_name("p-large");
  create_topic(t(), topic, 1, {{"max.message.bytes", "1000"}});
  expect_same(t().call("Produce above the topic's max.message.bytes", 0, k_v,
                       produce_req(topic, batch_of(std::string(1500, 'x'), 1))));
  const std::string plain = fresh_name("p-large2");
  create_topic(t(), plain);
  expect_same(t().call("Produce above message.max.bytes", 0, k_v,
                       produce_req(plain, batch_of(std::string(1100000, 'y'), 1))));
}

TEST_F(DifferentialTest, ProduceInvalidTimestamp) {
  const std::string topic = fresh_name("p-ts");
  create_topic(t(), topic);
  // Year 2100: beyond log.message.timestamp.after.max.ms (one hour) from now.
  expect_same(t().call("Produce future timestamp", 0, k_v, produce_req(topic, batch_of("f", 2, false, 4102444800000))),
              {{"*record_errors[*].batch_index_error_message", allowed::rule::same_nullness,
                "Kafka's message holds the accepted range, computed from the broker's clock"}});
  // Year 1970 + 1 s: before log.message.timestamp.before.max.ms? (unbounded by default: accepted)
  expect_same(t().call("Produce old timestamp", 0, k_v, produce_req(topic, batch_of("o", 2, false, 1000))));
}

}  // namespace
}  // namespace hw::testing::differential
