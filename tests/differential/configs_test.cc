// DescribeConfigs and IncrementalAlterConfigs on topics, the broker and
// groups (resource type 32: consumer.session.timeout.ms and
// consumer.heartbeat.interval.ms), compared field by field. Keys are named
// one by one: the full lists hold paths and settings of each installation.

#include "broker_process.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int8_t k_topic = 2, k_broker = 4, k_group = 32;

msg::describe_configs_request describe_req(int8_t type, const std::string& name, std::vector<std::string> keys,
                                           bool synonyms = false) {
  msg::describe_configs_request req;
  msg::describe_configs_request::describe_configs_resource r;
  r.resource_type = type;
  r.resource_name = name;
  r.configuration_keys = std::move(keys);
  req.resources.push_back(r);
  req.include_synonyms = synonyms;
  return req;
}

msg::incremental_alter_configs_request alter_req(int8_t type, const std::string& name,
                                                 std::vector<std::pair<std::string, std::string>> sets,
                                                 bool validate_only = false, int8_t op = 0) {
  msg::incremental_alter_configs_request req;
  msg::incremental_alter_configs_request::alter_configs_resource r;
  r.resource_type = type;
  r.resource_name = name;
  for (auto& [k, v] : sets) {
    msg::incremental_alter_configs_request::alterable_config c;
    c.name = k;
    c.config_operation = op;
    c.value = v;
    r.configs.push_back(c);
  }
  req.resources.push_back(r);
  req.validate_only = validate_only;
  return req;
}

const std::vector<std::string> k_topic_keys = {"cleanup.policy", "retention.ms", "max.message.bytes",
                                               "segment.bytes", "min.insync.replicas", "message.timestamp.type"};

TEST_F(DifferentialTest, DescribeTopicConfigs) {
  const std::string topic = fresh_name("cfg");
  create_topic(t(), topic, 1, {{"retention.ms", "7200000"}});
  for (const auto& key : k_topic_keys)
    for (int16_t v : {1, 4}) expect_same(t().call("DescribeConfigs topic " + key, 32, v, describe_req(k_topic, topic, {key})));
  expect_same(t().call("DescribeConfigs topic with synonyms", 32, 4, describe_req(k_topic, topic, {"retention.ms"}, true)));
  expect_same(t().call("DescribeConfigs unknown topic", 32, 4, describe_req(k_topic, fresh_name("cfg-none"), {"retention.ms"})));
  expect_same(t().call("DescribeConfigs unknown key", 32, 4, describe_req(k_topic, topic, {"no.such.key"})));
}

TEST_F(DifferentialTest, DescribeBrokerConfigs) {
  for (const char* key : {"num.partitions", "log.retention.hours", "message.max.bytes", "auto.create.topics.enable",
                          "offsets.topic.num.partitions", "group.initial.rebalance.delay.ms"})
    expect_same(t().call(std::string("DescribeConfigs broker ") + key, 32, 4, describe_req(k_broker, "1", {key})));
  expect_same(t().call("DescribeConfigs other broker", 32, 4, describe_req(k_broker, "2", {"num.partitions"})));
  expect_same(t().call("DescribeConfigs bad broker id", 32, 4, describe_req(k_broker, "one", {"num.partitions"})));
}

TEST_F(DifferentialTest, IncrementalAlterTopicConfigs) {
  const std::string topic = fresh_name("iac");
  create_topic(t(), topic);
  expect_same(t().call("IncrementalAlterConfigs set", 44, 1, alter_req(k_topic, topic, {{"retention.ms", "54321"}})));
  expect_same(t().call("DescribeConfigs after set", 32, 4, describe_req(k_topic, topic, {"retention.ms"})));
  expect_same(t().call("IncrementalAlterConfigs delete", 44, 1,
                       alter_req(k_topic, topic, {{"retention.ms", ""}}, false, 1)));
  expect_same(t().call("DescribeConfigs after delete", 32, 4, describe_req(k_topic, topic, {"retention.ms"})));
  expect_same(t().call("IncrementalAlterConfigs invalid value", 44, 1,
                       alter_req(k_topic, topic, {{"retention.ms", "soon"}})));
  expect_same(t().call("IncrementalAlterConfigs unknown key", 44, 1,
                       alter_req(k_topic, topic, {{"no.such.key", "1"}})));
  expect_same(t().call("IncrementalAlterConfigs validate only", 44, 1,
                       alter_req(k_topic, topic, {{"retention.ms", "1000"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs unknown topic", 44, 0,
                       alter_req(k_topic, fresh_name("iac-none"), {{"retention.ms", "1000"}})));
}

// Broker configs: validate-only changes (nothing is changed for the other
// tests), a static key, an unknown key, an unknown broker.
TEST_F(DifferentialTest, IncrementalAlterBrokerConfigs) {
  expect_same(t().call("IncrementalAlterConfigs broker dynamic key", 44, 1,
                       alter_req(k_broker, "1", {{"message.max.bytes", "2000000"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs cluster default", 44, 1,
                       alter_req(k_broker, "", {{"log.cleaner.backoff.ms", "20000"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs broker static key", 44, 1,
                       alter_req(k_broker, "1", {{"log.dirs", "/elsewhere"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs broker unknown key", 44, 1,
                       alter_req(k_broker, "1", {{"no.such.key", "1"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs broker invalid value", 44, 1,
                       alter_req(k_broker, "1", {{"message.max.bytes", "big"}}, true)));
  expect_same(t().call("IncrementalAlterConfigs other broker", 44, 1,
                       alter_req(k_broker, "7", {{"message.max.bytes", "2000000"}}, true)));
}

// Resource type GROUP (KIP-848 group configs): Kafka describes and alters
// them for any group id, existing or not.
TEST_F(DifferentialTest, GroupConfigs) {
  const std::string group = fresh_name("gcfg");
  const std::vector<std::string> keys = {"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"};
  // The heartbeat interval's default differs on purpose (1 s here, 5 s in
  // Kafka: README "Group protocols"), so only the session timeout's is compared.
  expect_same(t().call("DescribeConfigs group " + keys[0], 32, 4, describe_req(k_group, group, {keys[0]})));
  expect_same(t().call("IncrementalAlterConfigs group", 44, 1,
                       alter_req(k_group, group,
                                 {{"consumer.session.timeout.ms", "50000"}, {"consumer.heartbeat.interval.ms", "6000"}})));
  // Each broker answers DescribeConfigs from the metadata it has replayed,
  // which follows the controller's commit (and the alter's answer) by a
  // moment: wait until both show the change before comparing.
  auto shows_change = [&](side s) {
    auto e = t().call("DescribeConfigs group until altered", 32, 4,
                      describe_req(k_group, group, {"consumer.session.timeout.ms"}));
    auto r = e.as<msg::describe_configs_response>(s);
    return !r.results.empty() && !r.results[0].configs.empty() && r.results[0].configs[0].value == "50000";
  };
  for (side s : k_sides) EXPECT_TRUE(wait_until([&] { return shows_change(s); }, 10s)) << side_name(s);
  for (const auto& key : keys)
    expect_same(t().call("DescribeConfigs group after alter " + key, 32, 4, describe_req(k_group, group, {key})));
  expect_same(t().call("IncrementalAlterConfigs group out of range", 44, 1,
                       alter_req(k_group, group, {{"consumer.session.timeout.ms", "1"}})));
}

}  // namespace
}  // namespace hw::testing::differential
