// Replay builds the image Kafka's records describe; copy-on-write shares
// untouched topics; inconsistent records are refused as values.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "controller/metadata/delta.h"
#include "node_ids.h"
#include "protocol/records/record_batch.h"

namespace hw::controller {
namespace {

protocol::uuid make_id(uint8_t n) {
  protocol::uuid id;
  id.bytes[0] = 0x40;
  id.bytes[15] = n;
  return id;
}

// The same id as the image keys it.
topic_id tid(uint8_t n) { return topic_id(make_id(n)); }

msg::topic_record topic(const std::string& name, uint8_t id) {
  msg::topic_record r;
  r.name = name;
  r.topic_id = make_id(id);
  return r;
}

msg::partition_record partition(uint8_t topic_id, int32_t p, std::vector<int32_t> replicas) {
  msg::partition_record r;
  r.topic_id = make_id(topic_id);
  r.partition_id = p;
  r.replicas = replicas;
  r.isr = replicas;
  r.leader = replicas.front();
  r.leader_epoch = 0;
  r.partition_epoch = 0;
  return r;
}

msg::register_broker_record broker(int32_t id, int64_t epoch) {
  msg::register_broker_record r;
  r.broker_id = id;
  r.broker_epoch = epoch;
  r.incarnation_id = make_id(static_cast<uint8_t>(100 + id));
  r.end_points.push_back({"PLAINTEXT", "h" + std::to_string(id), static_cast<uint16_t>(9092 + id), 0, {}});
  r.rack = std::nullopt;
  return r;
}

std::shared_ptr<const metadata_image> replay(std::shared_ptr<const metadata_image> base,
                                             const std::vector<metadata_record>& records, int64_t offset = 0) {
  std::string error;
  auto next = replay_all(std::move(base), records, storage::offset(offset), leader_epoch(1), &error);
  EXPECT_TRUE(next) << error;
  return next;
}

TEST(ImageReplay, BuildsTopicsBrokersConfigsFeatures) {
  auto empty = std::make_shared<const metadata_image>();
  msg::feature_level_record mv;
  mv.name = "metadata.version";
  mv.feature_level = 30;
  msg::config_record cfg;
  cfg.resource_type = 2;
  cfg.resource_name = "a";
  cfg.name = "retention.ms";
  cfg.value = "100";
  auto image = replay(empty, {mv, broker(1, 10), broker(2, 11), topic("a", 1), partition(1, 0, {1, 2}),
                              partition(1, 1, {2, 1}), cfg}, 12);
  ASSERT_TRUE(image);
  EXPECT_EQ(image->version().level, 30);
  EXPECT_EQ(image->provenance, (image_provenance{storage::offset(12), leader_epoch(1)}));
  const topic_image* a = image->topic("a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, tid(1));
  EXPECT_EQ(image->topic(tid(1)), a);
  ASSERT_EQ(a->partitions.size(), 2u);
  EXPECT_EQ(image->partition("a", 1)->leader.value, 2);
  EXPECT_EQ(image->config(config_resource_type::topic, "a", "retention.ms"), "100");
  EXPECT_TRUE(image->alive_brokers().empty());  // registered fenced
  auto listeners = image->endpoints("PLAINTEXT");
  ASSERT_EQ(listeners.size(), 2u);
  EXPECT_EQ(listeners[1].second.port, 9094);

  msg::broker_registration_change_record unfence;
  unfence.broker_id = 2;
  unfence.broker_epoch = 11;
  unfence.fenced = -1;
  auto next = replay(image, {unfence});
  EXPECT_EQ(next->alive_brokers(), ids({2}));
  EXPECT_TRUE(image->alive_brokers().empty()) << "the base image never changes";
}

TEST(ImageReplay, PartitionChangeBumpsEpochsAsKafkaMerges) {
  auto base = replay(std::make_shared<const metadata_image>(), {topic("a", 1), partition(1, 0, {1, 2, 3})});
  msg::partition_change_record isr_only;
  isr_only.topic_id = make_id(1);
  isr_only.partition_id = 0;
  isr_only.isr = std::vector<int32_t>{1, 2};
  msg::partition_change_record new_leader = isr_only;
  new_leader.isr.reset();
  new_leader.leader = 2;
  new_leader.eligible_leader_replicas = std::vector<int32_t>{3};

  metadata_delta delta(base);
  ASSERT_FALSE(delta.replay(isr_only));
  ASSERT_FALSE(delta.replay(new_leader));
  auto next = delta.apply(storage::offset(5), leader_epoch(2));
  const partition_registration* p = next->partition(tid(1), 0);
  EXPECT_EQ(p->isr, ids({1, 2}));
  EXPECT_EQ(p->leader.value, 2);
  EXPECT_EQ(p->leader_epoch.value, 1);
  EXPECT_EQ(p->partition_epoch.value, 2);
  EXPECT_EQ(p->elr, ids({3}));

  auto changes = delta.changed_partitions();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].topic_name, "a");
  ASSERT_TRUE(changes[0].before);
  EXPECT_EQ(changes[0].before->leader.value, 1);
  EXPECT_EQ(changes[0].after.leader.value, 2);
}

TEST(ImageReplay, CopyOnWriteSharesUntouchedTopics) {
  auto base = replay(std::make_shared<const metadata_image>(),
                     {topic("a", 1), partition(1, 0, {1}), topic("b", 2), partition(2, 0, {1})});
  msg::partition_change_record change;
  change.topic_id = make_id(2);
  change.partition_id = 0;
  change.leader = 1;
  auto next = replay(base, {change});
  EXPECT_EQ(next->topics_by_id.at(tid(1)).get(), base->topics_by_id.at(tid(1)).get());
  EXPECT_NE(next->topics_by_id.at(tid(2)).get(), base->topics_by_id.at(tid(2)).get());
  EXPECT_EQ(base->partition("b", 0)->leader_epoch.value, 0);
  EXPECT_EQ(next->partition("b", 0)->leader_epoch.value, 1);
}

TEST(ImageReplay, RemoveTopicDropsItsConfigsAndReportsIt) {
  msg::config_record cfg;
  cfg.resource_type = 2;
  cfg.resource_name = "a";
  cfg.name = "cleanup.policy";
  cfg.value = "compact";
  auto base = replay(std::make_shared<const metadata_image>(), {topic("a", 1), partition(1, 0, {1}), cfg});
  msg::remove_topic_record remove;
  remove.topic_id = make_id(1);
  metadata_delta delta(base);
  ASSERT_FALSE(delta.replay(remove));
  ASSERT_FALSE(delta.replay(topic("a", 2)));  // the name is free again
  auto next = delta.apply(storage::offset(9), leader_epoch(1));
  EXPECT_EQ(next->topic("a")->id, tid(2));
  EXPECT_FALSE(next->config(config_resource{config_resource_type::topic, "a"}));
  ASSERT_EQ(delta.deleted_topics().size(), 1u);
  EXPECT_EQ(delta.deleted_topics()[0]->id, tid(1));
  EXPECT_EQ(delta.created_topics(), std::vector<topic_id>{tid(2)});
  EXPECT_EQ(delta.changed_configs().count(config_resource{config_resource_type::topic, "a"}), 1u);
}

TEST(ImageReplay, InconsistentRecordsAreRefusedAndChangeNothing) {
  auto base = replay(std::make_shared<const metadata_image>(), {topic("a", 1), partition(1, 0, {1}), broker(1, 5)});
  metadata_delta delta(base);
  EXPECT_TRUE(delta.replay(topic("a", 3)));           // name taken
  EXPECT_TRUE(delta.replay(topic("z", 1)));           // id taken
  EXPECT_TRUE(delta.replay(partition(9, 0, {1})));    // unknown topic
  msg::partition_change_record change;
  change.topic_id = make_id(1);
  change.partition_id = 7;
  EXPECT_TRUE(delta.replay(change));                  // unknown partition
  msg::broker_registration_change_record stale;
  stale.broker_id = 1;
  stale.broker_epoch = 4;
  stale.fenced = -1;
  EXPECT_TRUE(delta.replay(stale));                   // epoch mismatch
  msg::unregister_broker_record gone;
  gone.broker_id = 2;
  EXPECT_TRUE(delta.replay(gone));                    // not registered
  msg::producer_ids_record ids;
  ids.next_producer_id = 1000;
  EXPECT_FALSE(delta.replay(ids));
  EXPECT_TRUE(delta.replay(ids));                     // does not move forward
  msg::clear_elr_record clear;
  clear.topic_name = "nope";
  EXPECT_TRUE(delta.replay(clear));
  auto next = delta.apply(storage::offset(3), leader_epoch(1));
  EXPECT_EQ(next->topics_by_id.size(), 1u);
  EXPECT_EQ(next->partition("a", 0)->partition_epoch.value, 0);
  EXPECT_TRUE(next->broker(node_id(1))->fenced);
  EXPECT_EQ(next->next_producer_id, 1000);
}

msg::user_scram_credential_record scram(const std::string& user, int8_t mechanism, int32_t iterations) {
  msg::user_scram_credential_record r;
  r.name = user;
  r.mechanism = mechanism;
  r.salt = {1, 2, 3};
  r.stored_key = {4, 5};
  r.server_key = {6, 7};
  r.iterations = iterations;
  return r;
}

msg::remove_user_scram_credential_record remove_scram(const std::string& user, int8_t mechanism) {
  msg::remove_user_scram_credential_record r;
  r.name = user;
  r.mechanism = mechanism;
  return r;
}

TEST(ImageReplay, ScramCredentialsAreAddedReplacedAndRemoved) {
  using protocol::scram_mechanism;
  auto base = replay(std::make_shared<const metadata_image>(), {scram("alice", 1, 4096), scram("alice", 2, 8192)});
  ASSERT_TRUE(base->scram_credential(scram_mechanism::sha256, "alice"));
  EXPECT_EQ(base->scram_credential(scram_mechanism::sha256, "alice")->salt, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(base->scram_credential(scram_mechanism::sha256, "alice")->stored_key, (std::vector<uint8_t>{4, 5}));
  EXPECT_EQ(base->scram_credential(scram_mechanism::sha256, "alice")->server_key, (std::vector<uint8_t>{6, 7}));
  EXPECT_EQ(base->scram_credential(scram_mechanism::sha512, "alice")->iterations, 8192);
  EXPECT_FALSE(base->scram_credential(scram_mechanism::sha256, "bob"));

  metadata_delta delta(base);
  EXPECT_FALSE(delta.scram_changed());
  EXPECT_FALSE(delta.replay(scram("alice", 1, 10000)));  // replaces
  EXPECT_FALSE(delta.replay(remove_scram("alice", 2)));
  EXPECT_TRUE(delta.scram_changed());
  auto next = delta.apply(storage::offset(5), leader_epoch(1));
  EXPECT_EQ(next->scram_credential(scram_mechanism::sha256, "alice")->iterations, 10000);
  EXPECT_FALSE(next->scram_credential(scram_mechanism::sha512, "alice"));
  EXPECT_EQ(next->scram.count(scram_mechanism::sha512), 0u);  // no empty mechanism left behind
  // The base image is untouched.
  EXPECT_EQ(base->scram_credential(scram_mechanism::sha256, "alice")->iterations, 4096);
  EXPECT_TRUE(base->scram_credential(scram_mechanism::sha512, "alice"));
}

TEST(ImageReplay, ScramRecordsThatDoNotFitAreRefused) {
  auto base = replay(std::make_shared<const metadata_image>(), {scram("alice", 1, 4096)});
  metadata_delta delta(base);
  EXPECT_TRUE(delta.replay(remove_scram("alice", 2)));  // alice has no SCRAM-SHA-512
  EXPECT_TRUE(delta.replay(remove_scram("bob", 1)));    // no such user
  EXPECT_TRUE(delta.replay(scram("bob", 0, 4096)));     // UNKNOWN mechanism
  EXPECT_TRUE(delta.replay(scram("bob", 3, 4096)));
  EXPECT_FALSE(delta.scram_changed());
  auto next = delta.apply(storage::offset(5), leader_epoch(1));
  EXPECT_EQ(next->scram, base->scram);
}

TEST(ImageReplay, ClearElrClearsEveryTopicOrOne) {
  msg::partition_record with_elr = partition(1, 0, {1, 2});
  with_elr.isr = {1};
  with_elr.eligible_leader_replicas = std::vector<int32_t>{2};
  msg::partition_record other = partition(2, 0, {1, 2});
  other.isr = {1};
  other.last_known_elr = std::vector<int32_t>{2};
  auto base = replay(std::make_shared<const metadata_image>(),
                     {topic("a", 1), with_elr, topic("b", 2), other, partition(2, 1, {1})});
  msg::clear_elr_record one;
  one.topic_name = "a";
  auto next = replay(base, {one});
  EXPECT_TRUE(next->partition("a", 0)->elr.empty());
  EXPECT_EQ(next->partition("a", 0)->partition_epoch.value, 1);
  EXPECT_EQ(next->partition("b", 0)->last_known_elr, ids({2}));
  auto all = replay(base, {msg::clear_elr_record{}});
  EXPECT_TRUE(all->partition("b", 0)->last_known_elr.empty());
  EXPECT_EQ(all->partition("b", 0)->partition_epoch.value, 1);
  EXPECT_EQ(all->partition("b", 1)->partition_epoch.value, 0) << "nothing to clear, no new epoch";
}

// The whole Kafka 4.3.1 log of tests/controller/fixtures replays into the
// image Kafka's own tools showed for it.
TEST(ImageReplay, ReplaysKafka431Log) {
  std::ifstream in(std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/kafka_4_3_1_cluster_metadata.log",
                   std::ios::binary);
  std::vector<uint8_t> log{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto image = std::make_shared<const metadata_image>();
  protocol::record_batch_walker walker(log);
  protocol::record_batch_view batch;
  std::vector<uint8_t> scratch;
  while (walker.next(batch)) {
    if (batch.is_control()) continue;
    protocol::record_iterator it;
    ASSERT_EQ(batch.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
    metadata_delta delta(image);
    protocol::record_view rec;
    while (it.next(rec)) {
      metadata_record record;
      std::string error;
      ASSERT_TRUE(decode_record_value(*rec.value, &record, &error)) << error;
      auto refused = delta.replay(record);
      ASSERT_FALSE(refused) << "offset " << rec.offset << ": " << *refused;
    }
    image = delta.apply(storage::offset(batch.last_offset()), leader_epoch(batch.partition_leader_epoch()));
  }
  EXPECT_EQ(image->provenance.offset, storage::offset(206));
  EXPECT_EQ(image->version().level, 30);
  EXPECT_EQ(image->feature_level("eligible.leader.replicas.version"), 1);
  EXPECT_EQ(image->feature_level("transaction.version"), 2);
  EXPECT_EQ(image->config(config_resource_type::broker, "", "min.insync.replicas"), "1");
  EXPECT_EQ(image->config(config_resource_type::broker, "", "log.retention.ms"), "100000");
  EXPECT_EQ(image->config(config_resource_type::broker, "1", "log.cleaner.threads"), "2");
  EXPECT_EQ(image->config(config_resource_type::topic, "t1", "retention.ms"), "5000");
  EXPECT_EQ(image->config(config_resource_type::topic, "t1", "min.insync.replicas"), "2");
  EXPECT_FALSE(image->config(config_resource_type::topic, "t1", "segment.bytes"));
  EXPECT_FALSE(image->config(config_resource{config_resource_type::topic, "t2"}));
  EXPECT_FALSE(image->topic("t2"));
  ASSERT_TRUE(image->topic("t1"));
  ASSERT_TRUE(image->topic("t_1"));
  EXPECT_EQ(image->topic("t1")->id.value.to_string(), "lEpoR_YUSqyfr52lVru7rA");
  EXPECT_EQ(image->topic("t1")->partitions.size(), 5u);
  const partition_registration* p = image->partition("t1", 4);
  EXPECT_EQ(p->leader, no_leader);
  EXPECT_TRUE(p->isr.empty());
  EXPECT_EQ(p->elr, ids({1}));
  EXPECT_EQ(p->last_known_elr, ids({1}));
  EXPECT_EQ(p->leader_epoch.value, 1);
  EXPECT_EQ(p->partition_epoch.value, 1);
  const broker_registration* b = image->broker(node_id(1));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->epoch.value, 12);
  EXPECT_TRUE(b->fenced);
  EXPECT_TRUE(b->in_controlled_shutdown);
  EXPECT_EQ(b->endpoint("PLAINTEXT")->port, 39192);
  EXPECT_EQ(b->log_dirs.size(), 1u);
  EXPECT_EQ(image->controllers.count(node_id(1)), 1u);
  EXPECT_EQ(image->next_producer_id, 1000);
}

}  // namespace
}  // namespace hw::controller
