// image_records: the records of a snapshot rebuild the image they were
// taken from, in Kafka's order and record versions.

#include <gtest/gtest.h>

#include "controller/metadata/image_records.h"
#include "tests/controller/controller_harness.h"
#include "tests/controller/snapshot_support.h"

namespace hw::controller {
namespace {

using testing::expect_same_image;
using testing::replay_from_empty;
using testing::rich_log;

std::shared_ptr<const metadata_image> round_trip(const metadata_image& image) {
  std::string error;
  auto rebuilt = replay_from_empty(image_records(image), &error);
  EXPECT_TRUE(rebuilt) << error;
  return rebuilt;
}

TEST(SnapshotImageRecords, RichImageAtLatestVersionRoundTrips) {
  std::string error;
  auto image = replay_from_empty(rich_log(30, true), &error);
  ASSERT_TRUE(image) << error;
  // The log did reach every state the image keeps.
  ASSERT_EQ(image->topics_by_id.size(), 3u);
  EXPECT_FALSE(image->topic("doomed"));
  EXPECT_EQ(image->partition("alpha", 0)->elr, ids({2}));
  EXPECT_EQ(image->partition("alpha", 0)->last_known_elr, ids({3}));
  EXPECT_EQ(image->partition("gamma", 0)->leader_recovery_state, 1);
  EXPECT_EQ(image->partition("beta", 0)->adding, ids({3}));
  EXPECT_TRUE(image->broker(node_id(4))->fenced);
  EXPECT_FALSE(image->broker(node_id(1))->fenced);
  EXPECT_TRUE(image->broker(node_id(3))->in_controlled_shutdown);
  EXPECT_EQ(image->broker(node_id(4))->cordoned_log_dirs.size(), 1u);
  EXPECT_EQ(image->controllers.size(), 1u);
  EXPECT_EQ(image->configs.size(), 6u);  // doomed's went with it, broker 1's was deleted
  EXPECT_EQ(image->next_producer_id, 2000);
  EXPECT_FALSE(image->feature_level("transaction.version"));
  // SCRAM: alice with both mechanisms, bob's replaced, carol's removed.
  using protocol::scram_mechanism;
  ASSERT_TRUE(image->scram_credential(scram_mechanism::sha256, "alice"));
  EXPECT_EQ(image->scram_credential(scram_mechanism::sha256, "alice")->iterations, 8192);
  EXPECT_EQ(image->scram_credential(scram_mechanism::sha512, "alice")->iterations, 4096);
  ASSERT_TRUE(image->scram_credential(scram_mechanism::sha512, "bob"));
  EXPECT_EQ(image->scram_credential(scram_mechanism::sha512, "bob")->iterations, 10000);
  EXPECT_EQ(image->scram_credential(scram_mechanism::sha512, "bob")->salt, std::vector<uint8_t>(16, 4));
  EXPECT_FALSE(image->scram_credential(scram_mechanism::sha256, "bob"));
  EXPECT_FALSE(image->scram_credential(scram_mechanism::sha256, "carol"));
  EXPECT_EQ(image->scram.size(), 2u);

  auto rebuilt = round_trip(*image);
  ASSERT_TRUE(rebuilt);
  expect_same_image(*image, *rebuilt);
  // And again: a snapshot of the rebuilt image is the same records.
  EXPECT_EQ(image_records(*rebuilt), image_records(*image));
}

TEST(SnapshotImageRecords, OldestVersionImageRoundTrips) {
  std::string error;
  auto image = replay_from_empty(rich_log(7, false), &error);
  ASSERT_TRUE(image) << error;
  auto rebuilt = round_trip(*image);
  ASSERT_TRUE(rebuilt);
  expect_same_image(*image, *rebuilt);
}

TEST(SnapshotImageRecords, ControllerBuiltImageRoundTrips) {
  testing::harness h;
  h.add_brokers({1, 2, 3});
  h.create("a", 3, 3, {{"retention.ms", "10"}});
  h.create("b", 2, 2);
  h.create("c", 1, 1);
  h.heartbeat(2, false, true);  // fenced by request
  msg::delete_topics_request del;
  del.topics.push_back({std::string("c"), {}, {}});
  h.run(h.controller.delete_topics(del, 6));
  msg::allocate_producer_ids_request ids;
  ids.broker_id = 1;
  ids.broker_epoch = h.image().broker(node_id(1))->epoch.value;
  h.run(h.controller.allocate_producer_ids(ids));
  const metadata_image& image = h.image();
  ASSERT_TRUE(image.broker(node_id(2))->fenced);
  ASSERT_GT(image.next_producer_id, 0);
  auto rebuilt = round_trip(image);
  ASSERT_TRUE(rebuilt);
  expect_same_image(image, *rebuilt);
}

TEST(SnapshotImageRecords, KafkaOrder) {
  std::string error;
  auto image = replay_from_empty(rich_log(30, true), &error);
  ASSERT_TRUE(image) << error;
  auto records = image_records(*image);
  std::vector<std::string> kinds;
  for (const auto& r : records) kinds.emplace_back(record_name(r));
  ASSERT_FALSE(kinds.empty());
  // metadata.version first, then the other features.
  auto* first = std::get_if<msg::feature_level_record>(&records[0]);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "metadata.version");
  EXPECT_EQ(first->feature_level, 30);
  // Sections in Kafka's order: features, brokers, controllers, topics, configs, producer ids, SCRAM.
  auto rank = [](std::string_view k) {
    if (k == "FeatureLevelRecord") return 0;
    if (k == "RegisterBrokerRecord") return 1;
    if (k == "RegisterControllerRecord") return 2;
    if (k == "TopicRecord" || k == "PartitionRecord") return 3;
    if (k == "ConfigRecord") return 4;
    if (k == "ProducerIdsRecord") return 5;
    if (k == "UserScramCredentialRecord") return 6;
    return 99;
  };
  for (size_t i = 1; i < kinds.size(); ++i) EXPECT_LE(rank(kinds[i - 1]), rank(kinds[i])) << i << ": " << kinds[i];
  EXPECT_EQ(kinds.back(), "UserScramCredentialRecord");
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "UserScramCredentialRecord"), 3);  // alice twice, bob
  // Each topic's partitions follow its TopicRecord.
  protocol::uuid current;
  for (const auto& r : records) {
    if (auto* t = std::get_if<msg::topic_record>(&r)) current = t->topic_id;
    if (auto* p = std::get_if<msg::partition_record>(&r)) {
      EXPECT_EQ(p->topic_id, current);
    }
  }
  // Fencing and controlled shutdown live in the registrations: no change records.
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "RegisterBrokerRecord"), 4);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "BrokerRegistrationChangeRecord"), 0);
  auto* producer_ids = std::get_if<msg::producer_ids_record>(&records[records.size() - 4]);
  EXPECT_EQ(producer_ids->broker_id, -1);
  EXPECT_EQ(producer_ids->broker_epoch, -1);
  EXPECT_EQ(producer_ids->next_producer_id, 2000);
}

TEST(SnapshotImageRecords, ValuesUseTheVersionsOfTheImagesMetadataVersion) {
  for (auto [level, modern, partition_version, broker_version] :
       {std::tuple{30, true, 2, 4}, std::tuple{17, false, 1, 3}, std::tuple{7, false, 0, 1}}) {
    SCOPED_TRACE(level);
    std::string error;
    auto image = replay_from_empty(rich_log(static_cast<int16_t>(level), modern), &error);
    ASSERT_TRUE(image) << error;
    auto values = image_record_values(*image);
    auto records = image_records(*image);
    ASSERT_EQ(values.size(), records.size());
    for (size_t i = 0; i < values.size(); ++i) {
      metadata_record decoded;
      int16_t version = -1;
      ASSERT_TRUE(decode_record_value(values[i], &decoded, &error, &version)) << error;
      EXPECT_EQ(version, record_version_for(records[i], image->version()));
      if (std::holds_alternative<msg::partition_record>(decoded)) {
        EXPECT_EQ(version, partition_version);
      }
      if (std::holds_alternative<msg::register_broker_record>(decoded)) {
        EXPECT_EQ(version, broker_version);
      }
    }
  }
}

TEST(SnapshotImageRecords, ElrIsLeftOutWhileTheFeatureIsOff) {
  auto log = rich_log(30, true);
  log.push_back(testing::feature("eligible.leader.replicas.version", 0));
  std::string error;
  auto image = replay_from_empty(log, &error);
  ASSERT_TRUE(image) << error;
  ASSERT_FALSE(image->partition("alpha", 0)->elr.empty());  // replay keeps what the log said
  auto rebuilt = round_trip(*image);
  ASSERT_TRUE(rebuilt);
  EXPECT_TRUE(rebuilt->partition("alpha", 0)->elr.empty());
  EXPECT_TRUE(rebuilt->partition("alpha", 0)->last_known_elr.empty());
  EXPECT_EQ(rebuilt->partition("alpha", 0)->isr, image->partition("alpha", 0)->isr);
}

TEST(SnapshotImageRecords, ImageFromRecordValuesRebuildsOrSaysWhy) {
  std::string error;
  auto image = replay_from_empty(rich_log(30, true), &error);
  ASSERT_TRUE(image) << error;
  auto values = image_record_values(*image);
  auto rebuilt = image_from_record_values(values, storage::offset(99), leader_epoch(4), &error);
  ASSERT_TRUE(rebuilt) << error;
  expect_same_image(*image, *rebuilt);
  EXPECT_EQ(rebuilt->provenance, (image_provenance{storage::offset(99), leader_epoch(4)}));

  auto garbled = values;
  garbled[3] = {1, 99, 0};  // frame 1, api key 99
  EXPECT_FALSE(image_from_record_values(garbled, storage::offset(99), leader_epoch(4), &error));
  EXPECT_EQ(error.rfind("record 3: ", 0), 0u) << error;

  // A PartitionRecord before its TopicRecord: replay refuses it.
  auto reordered = values;
  auto topic = std::find_if(reordered.begin(), reordered.end(), [](const auto& v) {
    metadata_record r;
    std::string e;
    return decode_record_value(v, &r, &e) && std::holds_alternative<msg::topic_record>(r);
  });
  ASSERT_NE(topic, reordered.end());
  std::iter_swap(topic, topic + 1);
  EXPECT_FALSE(image_from_record_values(reordered, storage::offset(99), leader_epoch(4), &error));
  EXPECT_NE(error.find("PartitionRecord"), std::string::npos) << error;
}

TEST(SnapshotImageRecords, EmptyImageHasNoRecords) {
  EXPECT_TRUE(image_records(metadata_image{}).empty());
}

}  // namespace
}  // namespace hw::controller
