// Group configs (the GROUP config resource of KIP-848) over the wire against
// the real binary: IncrementalAlterConfigs and the legacy AlterConfigs set
// them for a group that need not exist, DescribeConfigs shows them with
// Kafka 4.3.1's sources and synonyms, errors carry Kafka's codes and
// messages, and the configs come back after a restart (metadata log).

#include <gtest/gtest.h>

#include "broker_process.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_config_resources.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

constexpr int8_t k_group = 32;
constexpr int16_t k_invalid_config = 40, k_invalid_request = 42;
constexpr int8_t k_default_config = 5, k_group_config = 8;
using op = std::tuple<std::string, int8_t, std::optional<std::string>>;
using result = msg::describe_configs_response::describe_configs_result;

class GroupConfigsIT : public ::testing::Test {
 protected:
  void SetUp() override { connect(); }
  void connect() {
    ASSERT_TRUE(broker.start()) << broker.log();
    client = std::make_unique<raw_client>(broker.port());
  }

  // One resource's (error code, message).
  std::pair<int16_t, std::optional<std::string>> alter(const std::string& group, std::vector<op> ops,
                                                       bool validate_only = false) {
    msg::incremental_alter_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = k_group;
    r.resource_name = group;
    for (auto& [k, o, v] : ops) r.configs.push_back({k, o, v, {}});
    req.validate_only = validate_only;
    auto resp = client->call<msg::incremental_alter_configs_response>(44, 1, req);
    if (!resp || resp->responses.size() != 1) return {-1, "no answer"};
    return {resp->responses[0].error_code, resp->responses[0].error_message};
  }

  result describe(const std::string& group, std::optional<std::vector<std::string>> keys = std::nullopt,
                  bool synonyms = true, bool documentation = false) {
    msg::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = k_group;
    r.resource_name = group;
    r.configuration_keys = std::move(keys);
    req.include_synonyms = synonyms;
    req.include_documentation = documentation;
    auto resp = client->call<msg::describe_configs_response>(32, 4, req);
    EXPECT_TRUE(resp && resp->results.size() == 1);
    return resp && resp->results.size() == 1 ? resp->results[0] : result{};
  }

  static const msg::describe_configs_response::describe_configs_resource_result* entry(const result& r,
                                                                                      const std::string& name) {
    for (const auto& c : r.configs)
      if (c.name == name) return &c;
    return nullptr;
  }

  broker_process broker;
  std::unique_ptr<raw_client> client;
};

TEST_F(GroupConfigsIT, SetDescribedAndKeptAcrossARestart) {
  auto defaults = describe("g");
  EXPECT_EQ(defaults.error_code, 0) << "a group need not exist to be described";
  ASSERT_EQ(defaults.configs.size(), 17u);
  EXPECT_EQ(defaults.configs[0].name, "consumer.session.timeout.ms") << "Kafka's order";
  EXPECT_EQ(defaults.configs[0].value, "45000");
  EXPECT_EQ(defaults.configs[0].config_source, k_default_config);
  ASSERT_EQ(defaults.configs[0].synonyms.size(), 1u);
  EXPECT_EQ(defaults.configs[0].synonyms[0].name, "group.consumer.session.timeout.ms");

  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 0, "50000"}, {"share.auto.offset.reset", 0, "earliest"}}),
            std::make_pair(int16_t{0}, std::optional<std::string>{}));
  auto set = describe("g");
  const auto* session = entry(set, "consumer.session.timeout.ms");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->value, "50000");
  EXPECT_EQ(session->config_source, k_group_config);
  EXPECT_FALSE(session->read_only);
  EXPECT_EQ(session->config_type, 3);  // INT
  ASSERT_EQ(session->synonyms.size(), 2u);
  EXPECT_EQ(session->synonyms[0].source, k_group_config);
  EXPECT_EQ(session->synonyms[1].name, "group.consumer.session.timeout.ms");
  EXPECT_EQ(session->synonyms[1].value, "45000");
  EXPECT_EQ(session->synonyms[1].source, k_default_config);
  const auto* reset = entry(set, "share.auto.offset.reset");
  ASSERT_TRUE(reset);
  ASSERT_EQ(reset->synonyms.size(), 2u);
  EXPECT_EQ(reset->synonyms[1].name, "share.auto.offset.reset");
  EXPECT_EQ(reset->synonyms[1].value, "latest");

  auto named = describe("g", std::vector<std::string>{"consumer.session.timeout.ms", "nope"}, false, true);
  ASSERT_EQ(named.configs.size(), 1u);
  EXPECT_TRUE(named.configs[0].synonyms.empty());
  EXPECT_TRUE(named.configs[0].documentation.has_value());

  // ListConfigResources (what kafka-configs.sh asks) finds the group by its configs.
  msg::list_config_resources_request list;
  list.resource_types = {k_group};
  auto listed = client->call<msg::list_config_resources_response>(74, 1, list);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->config_resources.size(), 1u);
  EXPECT_EQ(listed->config_resources[0].resource_name, "g");
  EXPECT_EQ(listed->config_resources[0].resource_type, k_group);

  ASSERT_EQ(broker.stop(SIGTERM), 0);
  connect();
  EXPECT_EQ(entry(describe("g"), "consumer.session.timeout.ms")->value, "50000") << "configs are in the metadata log";

  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 1, std::nullopt}}).first, 0);
  EXPECT_EQ(entry(describe("g"), "consumer.session.timeout.ms")->config_source, k_default_config);
}

TEST_F(GroupConfigsIT, ErrorsAsKafka) {
  using error = std::pair<int16_t, std::optional<std::string>>;
  EXPECT_EQ(alter("g", {{"foo", 0, "1"}}), error(k_invalid_config, "Unknown group config name: foo"));
  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 0, "0"}}),
            error(k_invalid_config,
                  "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1"));
  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 0, "70000"}}),
            error(k_invalid_config,
                  "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms"));
  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 2, "50000"}}),
            error(k_invalid_config, "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST."));
  EXPECT_EQ(alter("g", {{"consumer.session.timeout.ms", 0, std::nullopt}}),
            error(k_invalid_request, "Null value not supported for : consumer.session.timeout.ms"));
  EXPECT_EQ(alter("", {{"consumer.session.timeout.ms", 0, "50000"}}),
            error(k_invalid_request, "Default group resources are not allowed."));
  EXPECT_EQ(alter("dry", {{"consumer.session.timeout.ms", 0, "50000"}}, true).first, 0);
  EXPECT_EQ(entry(describe("dry"), "consumer.session.timeout.ms")->value, "45000") << "validate_only writes nothing";
  auto unnamed = describe("");
  EXPECT_EQ(unnamed.error_code, k_invalid_request);
  EXPECT_EQ(unnamed.error_message, "Group name must not be empty");

  // The legacy AlterConfigs validates the same way and replaces the whole set.
  msg::alter_configs_request legacy;
  auto& r = legacy.resources.emplace_back();
  r.resource_type = k_group;
  r.resource_name = "g";
  r.configs.push_back({"consumer.session.timeout.ms", "70000", {}});
  auto bad = client->call<msg::alter_configs_response>(33, 2, legacy);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->responses.at(0).error_code, k_invalid_config);
  EXPECT_EQ(bad->responses.at(0).error_message,
            "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms");
  r.configs[0].value = "50000";
  auto good = client->call<msg::alter_configs_response>(33, 2, legacy);
  ASSERT_TRUE(good);
  EXPECT_EQ(good->responses.at(0).error_code, 0);
  EXPECT_EQ(entry(describe("g"), "consumer.session.timeout.ms")->value, "50000");
}

}  // namespace
}  // namespace hw::testing
