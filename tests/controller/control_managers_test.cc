// Each control manager on its own, without the quorum controller in front:
// it generates records from an image it is handed and changes nothing
// there (the same image asked twice gives the same answer), and only the
// replay of those records moves the image.

#include <gtest/gtest.h>

#include "controller/cluster_control.h"
#include "controller/configuration_control.h"
#include "controller/feature_control.h"
#include "controller/metadata/delta.h"
#include "controller/producer_id_control.h"
#include "controller/replication_control.h"
#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::id_of;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

replication_control_options seeded() {
  replication_control_options o;
  o.random_seed = 7;
  return o;
}

// The managers wired as the quorum controller wires them, over an image
// the test holds and replays into itself.
struct managers {
  static constexpr int64_t session_timeout_ms = 9000;
  configuration_control configs;
  replication_control replication;
  cluster_control cluster;
  std::shared_ptr<const metadata_image> image = std::make_shared<const metadata_image>();
  int64_t next_offset = 0;
  int64_t now_ms = 1'000'000;

  explicit managers(configuration_control_options config_options = {})
      : configs(std::move(config_options)),
        replication(seeded(), configs),
        cluster(cluster_control_options{"test-cluster", session_timeout_ms}, replication) {
    apply(feature_control::bootstrap_records(latest_production_metadata_version, 1));
  }

  void apply(const std::vector<metadata_record>& records) {
    std::string error;
    auto next = replay_all(image, records, storage::offset{next_offset + static_cast<int64_t>(records.size()) - 1},
                           leader_epoch(1), &error);
    ASSERT_TRUE(next) << error;
    image = std::move(next);
    next_offset += static_cast<int64_t>(records.size());
  }
  template <class R>
  R run(controller_result<R> result) {
    apply(result.records);
    return std::move(result.response);
  }

  msg::broker_registration_request registration(int32_t id) const {
    msg::broker_registration_request r;
    r.broker_id = id;
    r.cluster_id = "test-cluster";
    r.incarnation_id = id_of(1000 + id);
    r.listeners.push_back({"PLAINTEXT", "localhost", static_cast<uint16_t>(9092 + id), 0, {}});
    for (const auto& [name, level] : image->features) r.features.push_back({name, 0, level, {}});
    r.log_dirs = {id_of(2000 + id)};
    return r;
  }
  msg::broker_heartbeat_request heartbeat(int32_t id) const {
    msg::broker_heartbeat_request r;
    r.broker_id = id;
    r.broker_epoch = image->broker(node_id(id))->epoch.value;
    r.current_metadata_offset = next_offset - 1;
    return r;
  }
  void add_brokers(std::initializer_list<int32_t> ids) {
    for (int32_t id : ids) run(cluster.register_broker(*image, registration(id), next_offset, now_ms));
    for (int32_t id : ids) run(cluster.broker_heartbeat(*image, heartbeat(id), next_offset, now_ms));
  }
  msg::create_topics_request topic(const std::string& name, int32_t partitions, int16_t rf) const {
    msg::create_topics_request request;
    auto& t = request.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = rf;
    return request;
  }
};

TEST(ClusterControl, RegistrationAndUnfencingAreRecordsUntilReplayed) {
  managers m;
  auto registered = m.cluster.register_broker(*m.image, m.registration(1), m.next_offset, m.now_ms);
  ASSERT_EQ(registered.response.error_code, 0);
  ASSERT_EQ(registered.records.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<msg::register_broker_record>(registered.records[0]));
  EXPECT_FALSE(m.image->broker(node_id(1)));
  m.apply(registered.records);
  ASSERT_TRUE(m.image->broker(node_id(1)));
  EXPECT_TRUE(m.image->broker(node_id(1))->fenced) << "a new incarnation starts fenced";

  auto unfence = m.cluster.broker_heartbeat(*m.image, m.heartbeat(1), m.next_offset, m.now_ms);
  EXPECT_FALSE(unfence.response.is_fenced);
  ASSERT_EQ(unfence.records.size(), 1u);
  EXPECT_TRUE(m.image->broker(node_id(1))->fenced) << "still fenced until the change is replayed";
  m.apply(unfence.records);
  EXPECT_FALSE(m.image->broker(node_id(1))->fenced);
  EXPECT_TRUE(m.image->active_broker(node_id(1)));
}

TEST(ClusterControl, ExpiredSessionFencesAndMovesLeadership) {
  managers m;
  m.add_brokers({1, 2});
  m.run(m.replication.create_topics(*m.image, m.topic("t", 4, 2)));
  // Broker 2 keeps heartbeating; 1 goes silent.
  const int64_t silent_since = m.now_ms;
  while (m.now_ms + 2000 - silent_since <= managers::session_timeout_ms) {
    m.now_ms += 2000;
    m.run(m.cluster.broker_heartbeat(*m.image, m.heartbeat(2), m.next_offset, m.now_ms));
    EXPECT_TRUE(m.cluster.fence_expired(*m.image, m.now_ms).empty());
  }
  m.now_ms = silent_since + managers::session_timeout_ms + 1;
  auto fenced = m.cluster.fence_expired(*m.image, m.now_ms);
  ASSERT_FALSE(fenced.empty());
  EXPECT_EQ(m.cluster.fence_expired(*m.image, m.now_ms), fenced) << "the same image gives the same records";
  m.apply(fenced);
  EXPECT_TRUE(m.image->broker(node_id(1))->fenced);
  EXPECT_FALSE(replication_control::leads_any(*m.image, node_id(1)));
  for (const auto& [_, p] : m.image->topic("t")->partitions) EXPECT_FALSE(p.in_isr(node_id(1)));
}

TEST(ClusterControl, UnregisterLeavesNoIsrBehind) {
  managers m;
  m.add_brokers({1, 2, 3});
  m.run(m.replication.create_topics(*m.image, m.topic("t", 3, 3)));
  msg::unregister_broker_request request;
  request.broker_id = 2;
  m.run(m.cluster.unregister_broker(*m.image, request));
  EXPECT_FALSE(m.image->broker(node_id(2)));
  for (const auto& [_, p] : m.image->topic("t")->partitions) EXPECT_FALSE(p.in_isr(node_id(2)));
  EXPECT_EQ(code_of(m.cluster.unregister_broker(*m.image, request).response.error_code),
            error_code::broker_id_not_registered);
}

TEST(ReplicationControl, CreateTopicsGeneratesThenReplayCreates) {
  managers m;
  m.add_brokers({1, 2, 3});
  auto created = m.replication.create_topics(*m.image, m.topic("t", 3, 2));
  ASSERT_EQ(created.response.topics.size(), 1u);
  ASSERT_EQ(created.response.topics[0].error_code, 0);
  EXPECT_EQ(created.records.size(), 1u + 3u) << "TopicRecord and one PartitionRecord per partition";
  EXPECT_FALSE(m.image->topic("t")) << "generating changes no image";
  m.apply(created.records);
  const topic_image* t = m.image->topic("t");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->id.value, created.response.topics[0].topic_id);
  ASSERT_EQ(t->partitions.size(), 3u);
  for (const auto& [_, p] : t->partitions) {
    EXPECT_EQ(p.replicas.size(), 2u);
    EXPECT_EQ(p.isr, p.replicas) << "every replica active: all in the first ISR";
    EXPECT_EQ(p.leader, p.replicas.front());
  }
  auto again = m.replication.create_topics(*m.image, m.topic("t", 3, 2));
  EXPECT_EQ(code_of(again.response.topics[0].error_code), error_code::topic_already_exists);
  EXPECT_TRUE(again.records.empty());
}

TEST(ReplicationControl, BrokerLeavingIsrsIsOneChangePerPartitionItIsIn) {
  managers m;
  m.add_brokers({1, 2, 3});
  m.run(m.replication.create_topics(*m.image, m.topic("t", 6, 2)));
  size_t with_3 = 0;
  for (const auto& [_, p] : m.image->topic("t")->partitions) with_3 += p.in_isr(node_id(3)) ? 1 : 0;
  ASSERT_GT(with_3, 0u);
  std::vector<metadata_record> out;
  m.replication.remove_from_isrs(*m.image, node_id(3), out);
  EXPECT_EQ(out.size(), with_3);
  m.apply(out);
  for (const auto& [_, p] : m.image->topic("t")->partitions) {
    EXPECT_FALSE(p.in_isr(node_id(3)));
    EXPECT_NE(p.leader.value, 3);
    EXPECT_TRUE(p.has_leader()) << "rf 2: the other replica leads";
  }
}

TEST(ConfigurationControl, AlterGeneratesThenReplaySets) {
  managers m;
  m.add_brokers({1});
  m.run(m.replication.create_topics(*m.image, m.topic("t", 1, 1)));
  msg::incremental_alter_configs_request request;
  auto& r = request.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(config_resource_type::topic);
  r.resource_name = "t";
  r.configs.push_back({"retention.ms", 0, "5000", {}});
  auto altered = m.configs.incremental_alter_configs(*m.image, request);
  ASSERT_EQ(altered.response.responses[0].error_code, 0);
  EXPECT_FALSE(m.image->config(config_resource_type::topic, "t", "retention.ms"));
  m.apply(altered.records);
  EXPECT_EQ(m.image->config(config_resource_type::topic, "t", "retention.ms"), "5000");
}

// Elections count against the topic's effective min ISR as the shared
// resolver gives it (config_resolver_test.cc has every layer), with the
// controller's own node id and static config under the dynamic configs.
TEST(ConfigurationControl, EffectiveMinIsrUsesTheControllersLayers) {
  auto static_config = std::make_shared<config::broker_config>();
  static_config->node_id = 1;
  static_config->values["min.insync.replicas"] = int64_t{2};
  static_config->explicitly_set["min.insync.replicas"] = "test";
  configuration_control_options options;
  options.static_config = static_config;
  options.node_id = 1;
  managers m(options);
  m.add_brokers({1, 2, 3});
  auto config = [&](config_resource_type type, std::string name, std::optional<std::string> value) {
    msg::config_record c;
    c.resource_type = static_cast<int8_t>(type);
    c.resource_name = std::move(name);
    c.name = "min.insync.replicas";
    c.value = std::move(value);
    m.apply({c});
  };
  m.run(m.replication.create_topics(*m.image, m.topic("t", 1, 3)));
  auto min_isr = [&] { return m.configs.effective_min_isr(*m.image, *m.image->topic("t")); };
  EXPECT_EQ(min_isr(), 1) << "bootstrap wrote the cluster default 1";
  config(config_resource_type::broker, "", std::nullopt);
  EXPECT_EQ(min_isr(), 2) << "the static config";
  config(config_resource_type::broker, "1", "3");
  EXPECT_EQ(min_isr(), 3) << "this controller's node";
  config(config_resource_type::topic, "t", "5");
  EXPECT_EQ(min_isr(), 3) << "capped at the replication factor";
}

TEST(FeatureControl, RegistrationMustCoverEveryFinalizedFeature) {
  managers m;
  auto supported = m.registration(1).features;
  EXPECT_EQ(feature_control::registration_error(*m.image, supported), error_code::none);
  auto without_mv = supported;
  std::erase_if(without_mv, [](const auto& f) { return f.name == metadata_version::feature_name; });
  EXPECT_EQ(feature_control::registration_error(*m.image, without_mv), error_code::invalid_registration);
  auto too_old = supported;
  for (auto& f : too_old) {
    if (f.name == "transaction.version") f.max_supported_version = 1;
  }
  EXPECT_EQ(feature_control::registration_error(*m.image, too_old), error_code::unsupported_version);
  auto missing = supported;
  std::erase_if(missing, [](const auto& f) { return f.name == "group.version"; });
  EXPECT_EQ(feature_control::registration_error(*m.image, missing), error_code::unsupported_version)
      << "a feature not listed counts as supporting level 0 only";
  EXPECT_TRUE(feature_control::elr_enabled(*m.image));
}

TEST(ProducerIdControl, BlocksFollowEachOtherOnceReplayed) {
  managers m;
  m.add_brokers({1});
  msg::allocate_producer_ids_request request;
  request.broker_id = 1;
  request.broker_epoch = m.image->broker(node_id(1))->epoch.value;
  auto first = producer_id_control::allocate_producer_ids(*m.image, request);
  EXPECT_EQ(producer_id_control::allocate_producer_ids(*m.image, request).response, first.response)
      << "not replayed: the same block again";
  m.apply(first.records);
  auto second = producer_id_control::allocate_producer_ids(*m.image, request);
  EXPECT_EQ(second.response.producer_id_start, first.response.producer_id_start + producer_id_control::block_size);
  request.broker_epoch += 1;
  EXPECT_EQ(code_of(producer_id_control::allocate_producer_ids(*m.image, request).response.error_code),
            error_code::stale_broker_epoch);
}

}  // namespace
}  // namespace hw::controller
