// IncrementalAlterConfigs and AlterConfigs for topics, brokers and groups, and the
// bootstrap records of a new cluster.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "protocol/records/record_batch.h"
#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

msg::incremental_alter_configs_request incremental(config_resource_type type, std::string name,
                                                   std::vector<std::tuple<std::string, int8_t, std::optional<std::string>>> ops) {
  msg::incremental_alter_configs_request request;
  auto& r = request.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(type);
  r.resource_name = std::move(name);
  for (auto& [k, op, v] : ops) r.configs.push_back({k, op, v, {}});
  return request;
}

TEST(ControllerConfigs, IncrementalSetDeleteAppend) {
  harness h;
  h.add_brokers({1});
  h.create("t1", 1, 1);
  auto set = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"retention.ms", 0, "5000"}, {"segment.bytes", 0, "1048576"}}));
  ASSERT_EQ(set.response.responses[0].error_code, 0);
  EXPECT_FALSE(set.response.responses[0].error_message);
  EXPECT_EQ(set.records.size(), 2u);
  h.apply(set.records);
  auto same = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"retention.ms", 0, "5000"}}));
  EXPECT_TRUE(same.records.empty()) << "an unchanged topic config writes nothing";
  auto del = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"segment.bytes", 1, std::nullopt}}));
  ASSERT_EQ(del.records.size(), 1u);
  EXPECT_FALSE(std::get<msg::config_record>(del.records[0]).value) << "as Kafka's record at fixture offset 151";
  h.apply(del.records);
  auto append = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"cleanup.policy", 2, "compact"}}));
  h.apply(append.records);
  EXPECT_EQ(h.image().config(config_resource_type::topic, "t1", "cleanup.policy"), "delete,compact");
  auto bad = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"retention.ms", 2, "1"}}));
  EXPECT_EQ(bad.response.responses[0].error_message, "Can't APPEND to key retention.ms because its type is not LIST.");
  EXPECT_EQ(h.image().config(config_resource_type::topic, "t1", "retention.ms"), "5000");
  EXPECT_FALSE(h.image().config(config_resource_type::topic, "t1", "segment.bytes"));
}

TEST(ControllerConfigs, DuplicatesAreRefused) {
  harness h;
  h.add_brokers({1});
  h.create("t", 1, 1);
  auto keys = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t", {{"retention.ms", 0, "1"}, {"retention.ms", 1, std::nullopt}}));
  EXPECT_EQ(keys.response.responses[0].error_message, "Error due to duplicate config keys");
  auto twice = incremental(config_resource_type::topic, "t", {{"retention.ms", 0, "1"}});
  twice.resources.push_back(twice.resources[0]);
  auto result = h.controller.incremental_alter_configs(twice);
  ASSERT_EQ(result.response.responses.size(), 2u);
  EXPECT_EQ(result.response.responses[1].error_message, "Each resource must appear at most once.");
  EXPECT_TRUE(result.records.empty());
}

TEST(ControllerConfigs, UnknownTopicAndBrokerNames) {
  harness h;
  h.add_brokers({1});
  auto missing = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "nosuch", {{"retention.ms", 0, "1"}}));
  EXPECT_EQ(code_of(missing.response.responses[0].error_code), error_code::unknown_topic_or_partition);
  EXPECT_EQ(missing.response.responses[0].error_message, "The topic 'nosuch' does not exist.");
  auto name = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "x", {{"log.cleaner.threads", 0, "2"}}));
  EXPECT_EQ(name.response.responses[0].error_message, "Unable to parse broker name as a base 10 number.");
  auto gone = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "7", {{"log.cleaner.threads", 0, "2"}}));
  EXPECT_EQ(code_of(gone.response.responses[0].error_code), error_code::broker_id_not_registered);
  auto broker = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "1", {{"log.cleaner.threads", 0, "2"}}));
  EXPECT_EQ(broker.response.responses[0].error_code, 0);
  h.apply(broker.records);
  auto again = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "1", {{"log.cleaner.threads", 0, "2"}}));
  EXPECT_EQ(again.records.size(), 1u) << "broker configs are rewritten even when unchanged (KAFKA-14136)";
}

TEST(ControllerConfigs, MinIsrChangesClearElrAndAreGuardedWithElr) {
  harness h;
  h.add_brokers({1});
  h.create("t1", 1, 1);
  auto topic = h.controller.incremental_alter_configs(
      incremental(config_resource_type::topic, "t1", {{"min.insync.replicas", 0, "2"}}));
  ASSERT_EQ(topic.records.size(), 2u);
  EXPECT_EQ(std::get<msg::clear_elr_record>(topic.records[1]).topic_name, "t1") << "as fixture offsets 157-158";
  auto per_broker = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "1", {{"min.insync.replicas", 0, "2"}}));
  EXPECT_EQ(code_of(per_broker.response.responses[0].error_code), error_code::invalid_config);
  EXPECT_EQ(per_broker.response.responses[0].error_message,
            "Broker-level min.insync.replicas cannot be altered while ELR is enabled.");
  auto remove = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "", {{"min.insync.replicas", 1, std::nullopt}}));
  EXPECT_EQ(remove.response.responses[0].error_message,
            "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.");
  auto cluster = h.controller.incremental_alter_configs(
      incremental(config_resource_type::broker, "", {{"min.insync.replicas", 0, "1"}}));
  ASSERT_EQ(cluster.records.size(), 2u);
  EXPECT_EQ(std::get<msg::clear_elr_record>(cluster.records[1]).topic_name, "");
}

TEST(ControllerConfigs, ValidateOnlyAndValidator) {
  quorum_controller_options o;
  o.configuration.validate_topic_config = [](std::string_view key, std::string_view) -> std::optional<std::pair<error_code, std::string>> {
    if (key == "foo") return std::pair{error_code::invalid_config, "Unknown topic config name: foo"};
    return std::nullopt;
  };
  harness h(o);
  h.add_brokers({1});
  h.create("t", 1, 1);
  auto request = incremental(config_resource_type::topic, "t", {{"retention.ms", 0, "1"}});
  request.validate_only = true;
  auto dry = h.controller.incremental_alter_configs(request);
  EXPECT_EQ(dry.response.responses[0].error_code, 0);
  EXPECT_TRUE(dry.records.empty());
  auto unknown = h.controller.incremental_alter_configs(incremental(config_resource_type::topic, "t", {{"foo", 0, "1"}}));
  EXPECT_EQ(unknown.response.responses[0].error_message, "Unknown topic config name: foo");
}

TEST(ControllerConfigs, LegacyAlterConfigsReplacesTheWholeSet) {
  harness h;
  h.add_brokers({1});
  h.create("t", 1, 1, {{"retention.ms", "1"}, {"segment.bytes", "2000000"}});
  msg::alter_configs_request request;
  auto& r = request.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(config_resource_type::topic);
  r.resource_name = "t";
  r.configs.push_back({"retention.ms", "7", {}});
  auto result = h.controller.alter_configs(request);
  ASSERT_EQ(result.response.responses[0].error_code, 0);
  h.apply(result.records);
  const auto* configs = h.image().config(config_resource{config_resource_type::topic, "t"});
  ASSERT_TRUE(configs);
  EXPECT_EQ(*configs, (std::map<std::string, std::string>{{"retention.ms", "7"}}));
}

// GROUP resources (KIP-848 group configs): the group need not exist, the
// whole set goes to the group validator, APPEND / SUBTRACT and null values
// are refused as Kafka 4.3.1 refuses them.
TEST(ControllerConfigs, GroupConfigs) {
  quorum_controller_options o;
  std::map<std::string, std::string> validated;
  o.configuration.validate_group_configs = [&](const std::map<std::string, std::string>& configs,
                                 const metadata_image&) -> std::optional<std::pair<error_code, std::string>> {
    validated = configs;
    if (configs.count("foo")) return std::pair{error_code::invalid_config, "Unknown group config name: foo"};
    return std::nullopt;
  };
  harness h(o);
  h.add_brokers({1});
  auto set = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"consumer.session.timeout.ms", 0, "50000"}}));
  ASSERT_EQ(set.response.responses[0].error_code, 0) << "a group need not exist for its configs to be set";
  ASSERT_EQ(set.records.size(), 1u);
  EXPECT_EQ(std::get<msg::config_record>(set.records[0]).resource_type, 32);
  h.apply(set.records);
  EXPECT_EQ(h.image().config(config_resource_type::group, "g", "consumer.session.timeout.ms"), "50000");

  auto more = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"share.isolation.level", 0, "read_committed"}}));
  EXPECT_EQ(validated, (std::map<std::string, std::string>{{"consumer.session.timeout.ms", "50000"},
                                                           {"share.isolation.level", "read_committed"}}))
      << "the validator sees the group's whole set after the change";
  auto unknown = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"foo", 0, "1"}}));
  EXPECT_EQ(code_of(unknown.response.responses[0].error_code), error_code::invalid_config);
  EXPECT_EQ(unknown.response.responses[0].error_message, "Unknown group config name: foo");
  EXPECT_TRUE(unknown.records.empty());
  auto append = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"consumer.session.timeout.ms", 2, "1"}}));
  EXPECT_EQ(append.response.responses[0].error_message,
            "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST.");
  auto subtract = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"foo", 3, "1"}}));
  EXPECT_EQ(subtract.response.responses[0].error_message, "Can't SUBTRACT to key foo because its type is not LIST.");
  auto null_set = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"consumer.session.timeout.ms", 0, std::nullopt}}));
  EXPECT_EQ(code_of(null_set.response.responses[0].error_code), error_code::invalid_request);
  EXPECT_EQ(null_set.response.responses[0].error_message, "Null value not supported for : consumer.session.timeout.ms");
  auto unnamed = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "", {{"consumer.session.timeout.ms", 0, "50000"}}));
  EXPECT_EQ(code_of(unnamed.response.responses[0].error_code), error_code::invalid_request);
  EXPECT_EQ(unnamed.response.responses[0].error_message, "Default group resources are not allowed.");
  auto dry_request = incremental(config_resource_type::group, "other", {{"consumer.session.timeout.ms", 0, "50000"}});
  dry_request.validate_only = true;
  auto dry = h.controller.incremental_alter_configs(dry_request);
  EXPECT_EQ(dry.response.responses[0].error_code, 0);
  EXPECT_TRUE(dry.records.empty());

  // The legacy AlterConfigs replaces the group's whole set.
  msg::alter_configs_request legacy;
  auto& r = legacy.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(config_resource_type::group);
  r.resource_name = "g";
  r.configs.push_back({"consumer.heartbeat.interval.ms", "6000", {}});
  auto replaced = h.controller.alter_configs(legacy);
  ASSERT_EQ(replaced.response.responses[0].error_code, 0);
  h.apply(replaced.records);
  EXPECT_EQ(*h.image().config(config_resource{config_resource_type::group, "g"}),
            (std::map<std::string, std::string>{{"consumer.heartbeat.interval.ms", "6000"}}));
  r.configs[0].value.reset();
  auto legacy_null = h.controller.alter_configs(legacy);
  EXPECT_EQ(legacy_null.response.responses[0].error_message,
            "Null value not supported for : consumer.heartbeat.interval.ms");
  auto del = h.controller.incremental_alter_configs(
      incremental(config_resource_type::group, "g", {{"consumer.heartbeat.interval.ms", 1, std::nullopt}}));
  h.apply(del.records);
  EXPECT_FALSE(h.image().config(config_resource{config_resource_type::group, "g"})) << "no configs left";
}

// The first batch of Kafka 4.3.1's log (fixture offsets 1-9) is what
// bootstrap_records writes for 4.3-IV0, byte for byte, except the
// share.version feature Highwater leaves out (its brokers have no share
// groups).
TEST(ControllerConfigs, BootstrapRecordsMatchKafkaFormat) {
  std::ifstream in(std::string(HW_SOURCE_DIR) + "/tests/controller/fixtures/kafka_4_3_1_cluster_metadata.log",
                   std::ios::binary);
  std::vector<uint8_t> log{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  protocol::record_batch_walker walker(log);
  protocol::record_batch_view batch;
  ASSERT_TRUE(walker.next(batch));  // the LeaderChange control batch
  ASSERT_TRUE(walker.next(batch));
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  ASSERT_EQ(batch.open_records(scratch, 1 << 20, it), protocol::batch_error::none);
  std::vector<std::vector<uint8_t>> kafkas;
  protocol::record_view rec;
  while (it.next(rec)) {
    metadata_record record;
    std::string error;
    ASSERT_TRUE(decode_record_value(*rec.value, &record, &error)) << error;
    if (auto* f = std::get_if<msg::feature_level_record>(&record)) {
      if (f->name == "share.version") continue;
    }
    kafkas.emplace_back(rec.value->begin(), rec.value->end());
  }
  std::vector<metadata_record> ours = feature_control::bootstrap_records(latest_production_metadata_version, 1);
  ASSERT_EQ(ours.size(), kafkas.size());
  ASSERT_EQ(ours.size(), 8u);
  for (size_t i = 0; i < ours.size(); ++i) {
    EXPECT_EQ(encode_record_value(ours[i]), kafkas[i]) << "record " << i << " (" << record_name(ours[i]) << ")";
  }
}

}  // namespace
}  // namespace hw::controller
