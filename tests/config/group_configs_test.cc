// Group-level configs (the GROUP resource). Expected messages and values are
// those a Kafka 4.3.1 broker gave for the same IncrementalAlterConfigs and
// DescribeConfigs requests (default bounds unless a test says otherwise).
#include "config/group_configs.h"

#include <gtest/gtest.h>

#include "config/group_configs_describe.h"
#include "config/value_parse.h"

namespace hw::config {
namespace {

broker_config_layers layers(std::vector<config_entry> extra = {}, config_map dynamic_default = {}) {
  std::vector<config_entry> entries = {{"node.id", "1", "f"}, {"process.roles", "broker,controller", "f"}};
  entries.insert(entries.end(), extra.begin(), extra.end());
  auto r = build_broker_config(entries);
  EXPECT_TRUE(r.config);
  return broker_config_layers(*r.config, std::move(dynamic_default));
}

std::string error_of(const config_map& group, const broker_config_layers& broker) {
  auto e = validate_group_configs(group, broker);
  return e ? e->message : "";
}

TEST(GroupConfigs, KafkasSeventeenKeys) {
  EXPECT_EQ(group_config_keys().size(), 17u);
  EXPECT_EQ(group_config_describe_order().size(), 17u);
  for (std::string_view name : group_config_describe_order()) EXPECT_TRUE(find_group_key(name)) << name;
  EXPECT_FALSE(find_group_key("consumer.assignor.offload.enable")) << "not defined in Kafka 4.3.1";
  for (const auto& key : group_config_keys()) {
    if (!key.broker_synonym.empty()) {
      EXPECT_TRUE(find_broker_key(key.broker_synonym)) << key.broker_synonym;
    }
  }
}

TEST(GroupConfigs, NamesTypesAndRules) {
  auto b = layers();
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "50000"}}, b), "");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", " +50000 "}}, b), "");
  EXPECT_EQ(error_of({{"foo", "1"}}, b), "Unknown group config name: foo");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "70000"}, {"foo", "1"}}, b), "Unknown group config name: foo");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "abc"}}, b),
            "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "99999999999"}}, b),
            "Invalid value 99999999999 for configuration consumer.session.timeout.ms: Not a number of type INT");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "0"}}, b),
            "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1");
  EXPECT_EQ(error_of({{"share.delivery.count.limit", "1"}}, b),
            "Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2");
  EXPECT_EQ(error_of({{"share.record.lock.duration.ms", "500"}}, b),
            "Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000");
  EXPECT_EQ(error_of({{"streams.num.standby.replicas", "-1"}}, b),
            "Invalid value -1 for configuration streams.num.standby.replicas: Value must be at least 0");
  EXPECT_EQ(error_of({{"share.isolation.level", "READ_COMMITTED"}}, b),
            "Invalid value READ_COMMITTED for configuration share.isolation.level: String must be one of: "
            "read_committed, read_uncommitted");
  EXPECT_EQ(error_of({{"share.renew.acknowledge.enable", "maybe"}}, b),
            "Invalid value maybe for configuration share.renew.acknowledge.enable: Expected value to be either true "
            "or false");
  EXPECT_EQ(error_of({{"share.renew.acknowledge.enable", "FALSE"}}, b), "");
  EXPECT_EQ(error_of({{"streams.initial.rebalance.delay.ms", "99999999"}}, b), "") << "no upper bound";
}

TEST(GroupConfigs, AutoOffsetReset) {
  auto b = layers();
  for (const char* ok : {"earliest", "latest", " earliest ", "by_duration:PT1H", "by_duration:P1D", "by_duration:PT0S",
                         "by_duration:-PT0S", "by_duration:P-1DT25H", "by_duration:PT1.5S", "by_duration:PT1,5S",
                         "by_duration:+PT1H", "by_duration:P1DT2H3M4.123456789S", "by_duration:pt1h"})
    EXPECT_EQ(error_of({{"share.auto.offset.reset", ok}}, b), "") << ok;
  for (const char* bad : {"Earliest", "LATEST", "none", "BY_DURATION:PT1H", "by_duration: PT1H", "by_duration:PT-1H",
                          "by_duration:-PT1H", "by_duration:", "by_duration", "by_duration:P1DT", "by_duration:P1W",
                          "by_duration:PT0.0000000001S", "", "bogus"}) {
    std::string shown = std::string(trim(bad));
    EXPECT_EQ(error_of({{"share.auto.offset.reset", bad}}, b),
              "Invalid value " + shown + " for configuration share.auto.offset.reset: Invalid value `" + shown +
                  "` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of "
                  "the format 'by_duration:<PnDTnHnMn.nS>'.")
        << bad;
  }
}

TEST(GroupConfigs, BrokerBounds) {
  auto b = layers();
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "70000"}}, b),
            "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "40000"}}, b),
            "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms");
  EXPECT_EQ(error_of({{"consumer.heartbeat.interval.ms", "20000"}}, b),
            "consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms");
  EXPECT_EQ(error_of({{"share.delivery.count.limit", "11"}}, b),
            "share.delivery.count.limit must be less than or equal to group.share.max.delivery.count.limit");
  EXPECT_EQ(error_of({{"share.record.lock.duration.ms", "10000"}}, b),
            "share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms");
  EXPECT_EQ(error_of({{"share.partition.max.record.locks", "5000"}}, b),
            "share.partition.max.record.locks must be less than or equal to "
            "group.share.max.partition.max.record.locks");
  EXPECT_EQ(error_of({{"streams.num.standby.replicas", "3"}}, b),
            "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas");
  EXPECT_EQ(error_of({{"consumer.assignment.interval.ms", "20000"}}, b),
            "consumer.assignment.interval.ms must be less than or equal to group.consumer.max.assignment.interval.ms");
  // Wider static bounds let more through, and bring the session-above-heartbeat check into reach.
  auto wide = layers({{"group.consumer.min.session.timeout.ms", "1000", "f"},
                      {"group.consumer.max.session.timeout.ms", "120000", "f"},
                      {"group.consumer.max.heartbeat.interval.ms", "60000", "f"}});
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "100000"}}, wide), "");
  EXPECT_EQ(error_of({{"consumer.session.timeout.ms", "8000"}, {"consumer.heartbeat.interval.ms", "8000"}}, wide),
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
  // The broker's default stands in for keys the group does not set.
  auto low = layers({{"group.consumer.min.session.timeout.ms", "1000", "f"},
                     {"group.consumer.session.timeout.ms", "6000", "f"},
                     {"group.consumer.max.heartbeat.interval.ms", "60000", "f"}});
  EXPECT_EQ(error_of({{"consumer.heartbeat.interval.ms", "7000"}}, low),
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
}

TEST(GroupConfigs, DescribeAsKafka) {
  auto b = layers({}, {{"group.consumer.assignment.interval.ms", "500"}});
  describe_options all;
  all.include_synonyms = true;
  auto none = describe_group_configs({}, b, all);
  ASSERT_EQ(none.size(), 17u);
  for (size_t i = 0; i < none.size(); ++i) EXPECT_EQ(none[i].name, group_config_describe_order()[i]);
  EXPECT_EQ(none[0].name, "consumer.session.timeout.ms");
  EXPECT_EQ(none[0].value, "45000");
  EXPECT_EQ(none[0].source, config_source::default_config);
  EXPECT_EQ(none[0].type, described_type::int32);
  EXPECT_FALSE(none[0].read_only);
  ASSERT_EQ(none[0].synonyms.size(), 1u);
  EXPECT_EQ(none[0].synonyms[0].name, "group.consumer.session.timeout.ms");
  EXPECT_EQ(none[0].synonyms[0].value, "45000");
  // A cluster-wide dynamic default of the broker key is the group's default.
  EXPECT_EQ(none[1].name, "consumer.assignment.interval.ms");
  EXPECT_EQ(none[1].value, "500");
  EXPECT_EQ(none[1].source, config_source::dynamic_default_broker_config);
  ASSERT_EQ(none[1].synonyms.size(), 2u);
  EXPECT_EQ(none[1].synonyms[1].source, config_source::default_config);
  // Keys without a broker synonym list GroupConfig's default under their own name.
  EXPECT_EQ(none[2].name, "share.auto.offset.reset");
  ASSERT_EQ(none[2].synonyms.size(), 1u);
  EXPECT_EQ(none[2].synonyms[0].name, "share.auto.offset.reset");
  EXPECT_EQ(none[2].synonyms[0].value, "latest");
  EXPECT_EQ(none[2].type, described_type::string);
  EXPECT_EQ(none[3].type, described_type::boolean);

  auto set = describe_group_configs({{"consumer.session.timeout.ms", " +50000"}, {"share.renew.acknowledge.enable", "FALSE"}},
                                    b, all);
  EXPECT_EQ(set[0].value, "50000");
  EXPECT_EQ(set[0].source, config_source::group_config);
  ASSERT_EQ(set[0].synonyms.size(), 2u);
  EXPECT_EQ(set[0].synonyms[0].value, "50000");
  EXPECT_EQ(set[0].synonyms[0].source, config_source::group_config);
  EXPECT_EQ(set[3].value, "false");

  describe_options named;
  named.include_documentation = true;
  named.keys = {"consumer.session.timeout.ms", "nope"};
  auto one = describe_group_configs({}, b, named);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].synonyms.empty());
  EXPECT_EQ(one[0].source, config_source::default_config);
  EXPECT_TRUE(one[0].documentation && !one[0].documentation->empty());
}

}  // namespace
}  // namespace hw::config
