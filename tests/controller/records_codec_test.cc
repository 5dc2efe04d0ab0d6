// Metadata record values: Kafka's frame, every record at every version, and
// every record of a real Kafka 4.3.1 `__cluster_metadata` log.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "controller/metadata/records.h"
#include "protocol/records/record_batch.h"

namespace hw::controller {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "PARTITION_CHANGE_RECORD" -> "PartitionChangeRecord".
std::string camel(const std::string& upper) {
  std::string out;
  bool start = true;
  for (char c : upper) {
    if (c == '_') {
      start = true;
      continue;
    }
    out += start ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    start = false;
  }
  return out;
}

TEST(RecordsCodec, FrameMatchesKafkasSerde) {
  msg::topic_record topic;
  topic.name = "t";
  topic.topic_id.bytes[15] = 7;
  std::vector<uint8_t> bytes = encode_record_value(topic);
  // frame version 1, api key 2, version 0, then compact string "t", uuid, no tags
  ASSERT_EQ(bytes.size(), 3u + 2u + 16u + 1u);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[1], 2);
  EXPECT_EQ(bytes[2], 0);
  EXPECT_EQ(bytes[3], 2);
  EXPECT_EQ(bytes[4], 't');
  EXPECT_EQ(bytes[20], 7);
  EXPECT_EQ(bytes[21], 0);

  metadata_record back;
  std::string error;
  int16_t version = -1;
  ASSERT_TRUE(decode_record_value(bytes, &back, &error, &version)) << error;
  EXPECT_EQ(version, 0);
  EXPECT_EQ(std::get<msg::topic_record>(back), topic);
}

TEST(RecordsCodec, EveryRecordAtEveryVersionRoundTrips) {
  metadata_record sample;
  size_t kinds = 0;
  [&]<size_t... I>(std::index_sequence<I...>) {
    (([&] {
       using T = std::variant_alternative_t<I, metadata_record>;
       ++kinds;
       for (int16_t v = T::schema.min_version; v <= T::schema.max_version; ++v) {
         metadata_record record = T{};
         std::vector<uint8_t> bytes = encode_record_value(record, v);
         metadata_record back;
         std::string error;
         int16_t version = -1;
         ASSERT_TRUE(decode_record_value(bytes, &back, &error, &version)) << T::schema.name << error;
         EXPECT_EQ(version, v);
         EXPECT_EQ(record_api_key(back), T::schema.api_key);
         EXPECT_EQ(encode_record_value(back, v), bytes) << T::schema.name << " v" << v;
       }
     }()),
     ...);
  }(std::make_index_sequence<std::variant_size_v<metadata_record>>{});
  EXPECT_EQ(kinds, 26u);
}

TEST(RecordsCodec, RejectsBadFramesAsValues) {
  metadata_record out;
  std::string error;
  std::vector<uint8_t> good = encode_record_value(msg::no_op_record{});
  EXPECT_TRUE(decode_record_value(good, &out, &error)) << error;

  std::vector<uint8_t> frame0 = good;
  frame0[0] = 0;
  EXPECT_FALSE(decode_record_value(frame0, &out, &error));
  EXPECT_NE(error.find("frame version"), std::string::npos);

  std::vector<uint8_t> unknown_key = good;
  unknown_key[1] = 13;  // a key Kafka never assigned to a live record
  EXPECT_FALSE(decode_record_value(unknown_key, &out, &error));
  EXPECT_NE(error.find("api key 13"), std::string::npos);

  std::vector<uint8_t> too_new = good;
  too_new[2] = 1;
  EXPECT_FALSE(decode_record_value(too_new, &out, &error));
  EXPECT_NE(error.find("NoOpRecord version 1"), std::string::npos);

  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_FALSE(decode_record_value(trailing, &out, &error));

  std::vector<uint8_t> topic = encode_record_value(msg::topic_record{});
  topic.resize(topic.size() - 5);
  EXPECT_FALSE(decode_record_value(topic, &out, &error));
  EXPECT_NE(error.find("TopicRecord"), std::string::npos);

  EXPECT_FALSE(decode_record_value({}, &out, &error));
}

TEST(RecordsCodec, VersionsFollowMetadataVersion) {
  metadata_version mv43 = latest_production_metadata_version;
  EXPECT_EQ(mv43.name(), "4.3-IV0");
  EXPECT_EQ(record_version_for(msg::register_broker_record{}, mv43), 4);
  EXPECT_EQ(record_version_for(msg::partition_record{}, mv43), 2);
  EXPECT_EQ(record_version_for(msg::partition_change_record{}, mv43), 2);
  metadata_version mv37 = *metadata_version::from_name("3.7-IV2");
  EXPECT_EQ(mv37.level, 17);
  EXPECT_EQ(record_version_for(msg::register_broker_record{}, mv37), 3);
  EXPECT_EQ(record_version_for(msg::partition_record{}, mv37), 1);
  EXPECT_EQ(record_version_for(msg::partition_record{}, minimum_metadata_version), 0);
  EXPECT_EQ(record_version_for(msg::register_broker_record{}, minimum_metadata_version), 1);

  msg::partition_record partition;
  EXPECT_EQ(encode_record_value(partition, mv37), encode_record_value(partition, int16_t{1}));
  EXPECT_NE(encode_record_value(partition, mv37), encode_record_value(partition, mv43));

  msg::broker_registration_change_record change;
  change.fenced = 1;
  EXPECT_EQ(record_version_for(change, mv43), 0);
  change.in_controlled_shutdown = 1;
  EXPECT_EQ(record_version_for(change, mv43), 1);
  change.cordoned_log_dirs.emplace();
  EXPECT_EQ(record_version_for(change, mv43), 3);
}

// Every record of a log written by Apache Kafka 4.3.1 (scripts/kafka-server.sh:
// format, topics created, altered, deleted, configs, a producer id block, a
// controlled shutdown) decodes with the type and version Kafka's
// DumpLogSegments printed, and re-encodes to the same bytes.
TEST(RecordsCodec, DecodesKafka431MetadataLog) {
  const std::string dir = std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/";
  std::vector<uint8_t> log = read_file(dir + "kafka_4_3_1_cluster_metadata.log");
  ASSERT_FALSE(log.empty());
  std::ifstream listing(dir + "kafka_4_3_1_cluster_metadata.records.txt");
  std::vector<std::tuple<int64_t, std::string, int>> expected;
  int64_t off;
  std::string type;
  int ver;
  while (listing >> off >> type >> ver) expected.emplace_back(off, camel(type), ver);
  ASSERT_GT(expected.size(), 100u);

  protocol::record_batch_walker walker(log);
  protocol::record_batch_view batch;
  std::vector<uint8_t> scratch;
  size_t seen = 0;
  bool saw_cordoned = false;
  bool saw_clear_elr = false;
  while (walker.next(batch)) {
    ASSERT_EQ(batch.validate(), protocol::batch_error::none);
    if (batch.is_control()) continue;
    protocol::record_iterator it;
    ASSERT_EQ(batch.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
    protocol::record_view rec;
    while (it.next(rec)) {
      ASSERT_FALSE(rec.key.has_value());
      ASSERT_TRUE(rec.value.has_value());
      metadata_record record;
      std::string error;
      int16_t version = -1;
      ASSERT_TRUE(decode_record_value(*rec.value, &record, &error, &version))
          << "offset " << rec.offset << ": " << error;
      ASSERT_LT(seen, expected.size());
      auto [e_off, e_name, e_ver] = expected[seen++];
      EXPECT_EQ(rec.offset, e_off);
      EXPECT_EQ(record_name(record), e_name) << "offset " << rec.offset;
      EXPECT_EQ(version, e_ver) << "offset " << rec.offset;
      std::vector<uint8_t> again = encode_record_value(record, version);
      EXPECT_EQ(again, std::vector<uint8_t>(rec.value->begin(), rec.value->end()))
          << "offset " << rec.offset;
      // What Kafka writes at 4.3-IV0 is what we would write.
      EXPECT_EQ(version, record_version_for(record, latest_production_metadata_version))
          << record_name(record) << " at offset " << rec.offset;
      if (auto* c = std::get_if<msg::broker_registration_change_record>(&record)) {
        saw_cordoned |= c->cordoned_log_dirs.has_value();
      }
      saw_clear_elr |= std::holds_alternative<msg::clear_elr_record>(record);
    }
  }
  EXPECT_EQ(walker.error(), protocol::batch_error::none);
  EXPECT_EQ(seen, expected.size());
  EXPECT_TRUE(saw_cordoned);
  EXPECT_TRUE(saw_clear_elr);
}

}  // namespace
}  // namespace hw::controller
