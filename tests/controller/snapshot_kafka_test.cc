// A snapshot Apache Kafka 4.3.1 wrote (tests/controller/fixtures/
// kafka_4_3_1_snapshot: a single-node broker+controller with static voters,
// metadata.log.max.record.bytes.between.snapshots=1, after creating topics
// snap-a (3 partitions, retention.ms) and snap-b (cleanup.policy=compact),
// creating and deleting snap-gone, setting a cluster-wide and a per-broker
// config, and one idempotent producer), and two from a 4.3.1 node formatted
// with --standalone (kraft.version 1: KRaftVersionRecord and VotersRecord
// in the header batch): the bootstrap snapshot `kafka-storage format`
// writes and one after creating kv1-topic. We read them and replay them; our
// encoder writes the same bytes for the same records; our image_records
// writes the same record bytes for what the image keeps.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "controller/metadata/image_records.h"
#include "controller/raft/snapshot_file.h"
#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/record_batch.h"
#include "tests/controller/snapshot_support.h"

namespace hw::controller {
namespace {

const std::string fixture_dir = std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/kafka_4_3_1_snapshot";
const raft::snapshot_id fixture_id{raft::offset(174), raft::epoch(1)};

const std::string kraft1_dir = std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/kafka_4_3_1_snapshot_kraft1";

std::vector<uint8_t> read_fixture(const std::string& dir, raft::snapshot_id id) {
  std::ifstream in(dir + "/" + raft::snapshot_file_name(id), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> fixture() { return read_fixture(fixture_dir, fixture_id); }

std::vector<metadata_record> decode_all(const std::vector<std::vector<uint8_t>>& values) {
  std::vector<metadata_record> out;
  for (const auto& v : values) {
    metadata_record r;
    std::string error;
    EXPECT_TRUE(decode_record_value(v, &r, &error)) << error;
    out.push_back(std::move(r));
  }
  return out;
}

TEST(SnapshotKafka, DecodesAndReplaysKafkasSnapshot) {
  auto bytes = fixture();
  ASSERT_EQ(bytes.size(), 1477u);
  auto d = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.last_contained_log_timestamp_ms, 1796057136088);
  EXPECT_EQ(d.leader_epoch, raft::epoch(1));
  EXPECT_FALSE(d.kraft_version) << "static voters: kraft.version 0, no KRaftVersionRecord";
  ASSERT_EQ(d.records.size(), 20u);

  auto records = decode_all(d.records);
  ASSERT_EQ(records.size(), 20u);
  EXPECT_EQ(record_name(records.front()), "FeatureLevelRecord");
  EXPECT_EQ(record_name(records.back()), "ProducerIdsRecord");
  std::string error;
  auto image = image_from_record_values(d.records, fixture_id.end_offset - 1, fixture_id.leader_epoch, &error);
  ASSERT_TRUE(image) << error;
  EXPECT_EQ(image->provenance, (image_provenance{storage::offset(173), leader_epoch(1)}));
  EXPECT_EQ(image->version().level, 30);
  EXPECT_EQ(image->feature_level("eligible.leader.replicas.version"), 1);
  ASSERT_TRUE(image->topic("snap-a"));
  EXPECT_EQ(image->topic("snap-a")->partitions.size(), 3u);
  ASSERT_TRUE(image->topic("snap-b"));
  EXPECT_FALSE(image->topic("snap-gone"));
  EXPECT_EQ(image->config(config_resource_type::topic, "snap-a", "retention.ms"), "12345");
  EXPECT_EQ(image->config(config_resource_type::topic, "snap-b", "cleanup.policy"), "compact");
  EXPECT_EQ(image->config(config_resource_type::broker, "", "log.retention.ms"), "7200000");
  EXPECT_EQ(image->config(config_resource_type::broker, "1", "log.cleaner.threads"), "2");
  ASSERT_TRUE(image->broker(node_id(1)));
  EXPECT_FALSE(image->broker(node_id(1))->fenced);
  EXPECT_EQ(image->controllers.count(node_id(1)), 1u);
  EXPECT_EQ(image->next_producer_id, 1000);
}

TEST(SnapshotKafka, OurEncoderWritesKafkasBytes) {
  auto bytes = fixture();
  auto d = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  // Kafka reads its clock for each batch; encode with each batch's time and
  // compare that batch.
  protocol::record_batch_walker walker(protocol::bytes_view(bytes.data(), bytes.size()));
  protocol::record_batch_view batch;
  size_t index = 0;
  while (walker.next(batch)) {
    raft::snapshot_write_options o;
    o.last_contained_log_timestamp_ms = d.last_contained_log_timestamp_ms;
    o.write_time_ms = batch.base_timestamp();
    auto ours = raft::encode_snapshot(fixture_id, d.records, o);
    protocol::record_batch_walker our_walker(protocol::bytes_view(ours.data(), ours.size()));
    protocol::record_batch_view our_batch;
    for (size_t i = 0; i <= index; ++i) ASSERT_TRUE(our_walker.next(our_batch));
    EXPECT_TRUE(std::ranges::equal(our_batch.bytes(), batch.bytes())) << "batch " << index;
    ++index;
  }
  EXPECT_EQ(index, 3u);
}

TEST(SnapshotKafka, ImageRecordsMatchKafkasRecordBytes) {
  auto bytes = fixture();
  auto d = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  std::string error;
  auto image = testing::replay_from_empty(decode_all(d.records), &error);
  ASSERT_TRUE(image) << error;
  auto ours = image_record_values(*image);
  ASSERT_EQ(ours.size(), d.records.size());
  // Registrations list features in the order the node sent them; the image
  // keeps them by name, so compare those through the image below.
  auto comparable = [](const std::vector<std::vector<uint8_t>>& values) {
    std::vector<std::vector<uint8_t>> out;
    for (const auto& v : values) {
      metadata_record r;
      std::string e;
      if (!decode_record_value(v, &r, &e)) continue;
      if (std::holds_alternative<msg::register_broker_record>(r) ||
          std::holds_alternative<msg::register_controller_record>(r)) {
        continue;
      }
      out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(comparable(ours), comparable(d.records));
  EXPECT_EQ(ours.front(), d.records.front()) << "metadata.version first, as Kafka";
  EXPECT_EQ(ours.back(), d.records.back()) << "producer ids last, as Kafka";

  auto rebuilt = testing::replay_from_empty(decode_all(ours), &error);
  ASSERT_TRUE(rebuilt) << error;
  testing::expect_same_image(*image, *rebuilt);
}

TEST(SnapshotKafka, ReadsKraftVersionOneSnapshots) {
  const raft::snapshot_id bootstrap{raft::offset(0), raft::epoch(0)};
  const raft::snapshot_id later{raft::offset(55), raft::epoch(1)};
  auto fs = storage::make_posix_file_system();
  std::vector<raft::snapshot_id> ids;
  ASSERT_FALSE(raft::list_snapshot_files(*fs, kraft1_dir, &ids));
  EXPECT_EQ(ids, (std::vector<raft::snapshot_id>{bootstrap, later}));

  auto boot_bytes = read_fixture(kraft1_dir, bootstrap);
  auto boot = raft::decode_snapshot(protocol::bytes_view(boot_bytes.data(), boot_bytes.size()));
  ASSERT_TRUE(boot.ok()) << boot.error;
  EXPECT_EQ(boot.kraft_version, 1);
  EXPECT_TRUE(boot.voters_record);
  EXPECT_TRUE(boot.records.empty()) << "format's snapshot holds only the quorum";

  auto bytes = read_fixture(kraft1_dir, later);
  auto d = raft::decode_snapshot(protocol::bytes_view(bytes.data(), bytes.size()));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.last_contained_log_timestamp_ms, 1796058162684);
  EXPECT_EQ(d.kraft_version, 1);
  ASSERT_TRUE(d.voters_record);
  protocol::reader r(protocol::bytes_view(d.voters_record->data(), d.voters_record->size()));
  protocol::msg::voters_record voters;
  voters.decode(r, 0);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(voters.voters.size(), 1u);
  EXPECT_EQ(voters.voters[0].voter_id, 1);
  ASSERT_EQ(voters.voters[0].endpoints.size(), 1u);
  EXPECT_EQ(voters.voters[0].endpoints[0].port, 39293);
  ASSERT_EQ(d.records.size(), 13u);

  std::string error;
  auto image = testing::replay_from_empty(decode_all(d.records), &error);
  ASSERT_TRUE(image) << error;
  ASSERT_TRUE(image->topic("kv1-topic"));
  EXPECT_EQ(image->topic("kv1-topic")->partitions.size(), 2u);
  EXPECT_EQ(image->config(config_resource_type::topic, "kv1-topic", "retention.ms"), "5555");
}

TEST(SnapshotKafka, ListsKafkasSnapshotDirectory) {
  auto fs = storage::make_posix_file_system();
  std::vector<raft::snapshot_id> ids;
  ASSERT_FALSE(raft::list_snapshot_files(*fs, fixture_dir, &ids));
  EXPECT_EQ(ids, std::vector<raft::snapshot_id>{fixture_id});
  std::vector<uint8_t> read;
  ASSERT_FALSE(raft::read_snapshot_file(*fs, fixture_dir, fixture_id, &read));
  EXPECT_EQ(read, fixture());
}

}  // namespace
}  // namespace hw::controller
