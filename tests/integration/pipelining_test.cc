// A client's pipelined requests on one connection are handled in the order
// sent, as Kafka handles them: Produce requests naming several partitions
// in varying order land in every partition in request order (the Java
// producer and librdkafka keep up to 5 in flight per connection).

#include <gtest/gtest.h>

#include "broker_process.h"
#include "protocol/records/record_batch.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

std::vector<uint8_t> batch_with_value(const std::string& value) {
  protocol::record_batch_builder b(protocol::record_batch_options{});
  b.append(1700000000000, std::nullopt,
           protocol::bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  return b.finish();
}

// The record values of a fetched batch stream, in offset order.
std::vector<std::string> values_of(const std::vector<uint8_t>& records) {
  std::vector<std::string> out;
  protocol::record_batch_walker walker(protocol::bytes_view(records.data(), records.size()));
  protocol::record_batch_view b;
  std::vector<uint8_t> scratch;
  while (walker.next(b)) {
    protocol::record_iterator it;
    if (b.open_records(scratch, 1 << 20, it) != protocol::batch_error::none) break;
    protocol::record_view r;
    while (it.next(r)) out.emplace_back(r.value->begin(), r.value->end());
  }
  return out;
}

TEST(PipeliningIT, ProduceRequestsReachEveryPartitionInRequestOrder) {
  broker_process broker;
  ASSERT_TRUE(broker.start()) << broker.log();
  const std::string topic = "pipelined";
  const int partitions = 4;
  const int requests = 200;
  {
    raw_client admin(broker.port());
    auto created = admin.create_topic(topic, partitions);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics.at(0).error_code, 0);
  }

  // Every request writes one record to each partition, naming the
  // partitions in an order that rotates from request to request; all are
  // sent before any answer is read.
  std::vector<std::vector<uint8_t>> batches;  // kept alive while encoding
  kafka_socket s(broker.port());
  ASSERT_TRUE(s.connected());
  for (int i = 0; i < requests; ++i) {
    msg::produce_request req;
    req.acks = 1;
    req.timeout_ms = 10000;
    msg::produce_request::topic_produce_data t;
    t.name = topic;
    for (int k = 0; k < partitions; ++k) {
      const int p = (i + k) % partitions;
      batches.push_back(batch_with_value(std::to_string(i)));
      msg::produce_request::partition_produce_data pd;
      pd.index = p;
      pd.records = protocol::records_view(protocol::bytes_view(batches.back()));
      t.partition_data.push_back(pd);
    }
    req.topic_data.push_back(t);
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, k_produce_version);
    ASSERT_TRUE(s.send_frame(request_frame(0, k_produce_version, i + 1, body)));
  }
  for (int i = 0; i < requests; ++i) {
    auto frame = s.read_frame(std::chrono::seconds(20));
    ASSERT_TRUE(frame) << "answer " << i;
    protocol::reader r(*frame);
    EXPECT_EQ(r.read_int32(), i + 1) << "answers come in request order";
  }

  raw_client c(broker.port());
  std::vector<std::string> expected;
  for (int i = 0; i < requests; ++i) expected.push_back(std::to_string(i));
  for (int p = 0; p < partitions; ++p) {
    auto f = c.fetch(topic, p, 0);
    ASSERT_TRUE(f);
    EXPECT_EQ(values_of(f->records), expected) << "partition " << p;
  }
}

}  // namespace
}  // namespace hw::testing
