#include "config/topic_configs.h"

#include <gtest/gtest.h>

#include "config/topic_configs_layers.h"
#include "config/topic_configs_values.h"

namespace hw::config {
namespace {

broker_config static_config(std::vector<config_entry> entries) {
  entries.insert(entries.begin(), {"node.id", "1", "test"});
  auto r = build_broker_config(entries);
  for (auto& e : r.errors) ADD_FAILURE() << e;
  return r.config ? *r.config : broker_config{};
}

std::string error_of(std::string_view key, std::string_view value) {
  auto e = validate_topic_config(key, value);
  return e ? e->message : "";
}

TEST(TopicKeyTable, IsKafka43sListSortedWithValidDefaultsAndKnownSynonyms) {
  // Kafka 4.3.1's LogConfig.nonInternalConfigNames(), in its (sorted) order.
  const std::vector<std::string_view> kafka = {
      "cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
      "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages", "flush.ms",
      "follower.replication.throttled.replicas", "index.interval.bytes", "leader.replication.throttled.replicas",
      "local.retention.bytes", "local.retention.ms", "max.compaction.lag.ms", "max.message.bytes",
      "message.timestamp.after.max.ms", "message.timestamp.before.max.ms", "message.timestamp.type",
      "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas", "preallocate",
      "remote.log.copy.disable", "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes",
      "retention.ms", "segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms",
      "unclean.leader.election.enable"};
  std::vector<std::string_view> ours;
  for (const auto& k : topic_config_keys()) {
    ours.push_back(k.name);
    EXPECT_FALSE(validate_topic_config(k.name, k.default_value)) << k.name << ": " << error_of(k.name, k.default_value);
    EXPECT_FALSE(k.doc.empty()) << k.name;
    for (const auto& s : k.synonyms) EXPECT_NE(find_broker_key(s.name), nullptr) << k.name << " <- " << s.name;
    EXPECT_EQ(find_topic_key(k.name), &k);
  }
  EXPECT_EQ(ours, kafka);
  EXPECT_EQ(find_topic_key("message.downconversion.enable"), nullptr);  // removed in Kafka 4.0
  EXPECT_EQ(find_topic_key("zzz"), nullptr);
  EXPECT_EQ(find_topic_key(""), nullptr);
}

TEST(TopicKeyTable, BrokerDefaultsEqualTopicDefaults) {
  // With nothing configured, each topic default equals Kafka's LogConfig
  // default, i.e. the broker table and the topic table agree.
  broker_config_layers broker(static_config({}));
  for (const auto& k : topic_config_keys()) {
    EXPECT_EQ(broker_default_for(k, broker), parse_topic_value(k, k.default_value)) << k.name;
  }
}

// The messages below are what a Kafka 4.3.1 broker answered to
// kafka-topics --create --config / kafka-configs --alter.
TEST(ValidateTopicConfig, KafkaWordingForEachRule) {
  EXPECT_EQ(error_of("foo.bar", "1"), "Unknown topic config name: foo.bar");
  EXPECT_EQ(error_of("retention.ms", "abc"), "Invalid value abc for configuration retention.ms: Not a number of type LONG");
  EXPECT_EQ(error_of("retention.ms", "99999999999999999999"),
            "Invalid value 99999999999999999999 for configuration retention.ms: Not a number of type LONG");
  EXPECT_EQ(error_of("retention.ms", "-5"), "Invalid value -5 for configuration retention.ms: Value must be at least -1");
  EXPECT_EQ(error_of("segment.bytes", "1000"),
            "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576");
  EXPECT_EQ(error_of("cleanup.policy", "compact,foo"),
            "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete");
  EXPECT_EQ(error_of("cleanup.policy", "Compact"),
            "Invalid value Compact for configuration cleanup.policy: String must be one of: compact, delete");
  EXPECT_EQ(error_of("cleanup.policy", "compact, ,delete"), "Configuration 'cleanup.policy' values must not be empty.");
  EXPECT_EQ(error_of("compression.type", "brotli"),
            "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, "
            "lz4, snappy, gzip, producer");
  EXPECT_EQ(error_of("compression.gzip.level", "0"),
            "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1");
  EXPECT_EQ(error_of("compression.zstd.level", "23"),
            "Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22");
  EXPECT_EQ(error_of("min.cleanable.dirty.ratio", "1.5"),
            "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1");
  EXPECT_EQ(error_of("min.cleanable.dirty.ratio", "2"),
            "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1");
  EXPECT_EQ(error_of("preallocate", "yes"),
            "Invalid value yes for configuration preallocate: Expected value to be either true or false");
  EXPECT_EQ(error_of("message.timestamp.type", "createtime"),
            "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, "
            "LogAppendTime");
  EXPECT_EQ(error_of("max.message.bytes", "-1"),
            "Invalid value -1 for configuration max.message.bytes: Value must be at least 0");
  EXPECT_EQ(error_of("segment.ms", "0"), "Invalid value 0 for configuration segment.ms: Value must be at least 1");
  EXPECT_EQ(error_of("follower.replication.throttled.replicas", "abc"),
            "Invalid value [abc] for configuration follower.replication.throttled.replicas: "
            "follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
            "format: [partitionId]:[brokerId],[partitionId]:[brokerId],...");
  EXPECT_EQ(error_of("segment.bytes", "2147483648"),
            "Invalid value 2147483648 for configuration segment.bytes: Not a number of type INT");
}

TEST(ValidateTopicConfig, AcceptsWhatKafkaAccepts) {
  for (auto [k, v] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"unclean.leader.election.enable", "TRUE"},
           {"leader.replication.throttled.replicas", "*"},
           {"leader.replication.throttled.replicas", "0:1, 1:2"},
           {"follower.replication.throttled.replicas", ""},
           {"cleanup.policy", ""},  // an empty list: neither delete nor compact
           {"cleanup.policy", "compact,delete"},
           {"cleanup.policy", "compact,compact"},
           {"segment.bytes", " 2000000"},
           {"retention.ms", "+5"},
           {"retention.ms", "-1"},
           {"min.cleanable.dirty.ratio", "1e-1"},
           {"compression.gzip.level", "-1"},
           {"compression.zstd.level", "-131072"},
           {"local.retention.ms", "-2"},
           {"retention.bytes", "-12345"},  // no rule, as in Kafka
       }) {
    EXPECT_EQ(error_of(k, v), "") << k << "=" << v;
  }
}

TEST(ValidateTopicConfigs, CompactionLagConflictUsesBrokerValuesForUnsetKeys) {
  broker_config_layers plain(static_config({}));
  auto e = validate_topic_configs({{"min.compaction.lag.ms", "100"}, {"max.compaction.lag.ms", "50"}}, plain);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "conflict topic config setting min.compaction.lag.ms (100) > max.compaction.lag.ms (50)");
  EXPECT_FALSE(validate_topic_configs({{"min.compaction.lag.ms", "99999999999"}}, plain));

  broker_config_layers low_max(static_config({{"log.cleaner.max.compaction.lag.ms", "10", "test"}}));
  e = validate_topic_configs({{"min.compaction.lag.ms", "11"}}, low_max);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "conflict topic config setting min.compaction.lag.ms (11) > max.compaction.lag.ms (10)");
}

TEST(ValidateTopicConfigs, SingleValueErrorsComeFirstAndTieredStorageIsRefused) {
  broker_config_layers plain(static_config({}));
  EXPECT_EQ(validate_topic_configs({{"retention.ms", "x"}}, plain)->message,
            "Invalid value x for configuration retention.ms: Not a number of type LONG");
  EXPECT_EQ(validate_topic_configs({{"remote.storage.enable", "true"}}, plain)->message,
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log "
            "storage.");
  EXPECT_FALSE(validate_topic_configs({{"remote.storage.enable", "false"}}, plain));
  EXPECT_FALSE(validate_topic_configs({}, plain));
}

TEST(EffectiveTopicConfigs, DefaultsFollowBrokerSynonymsInKafkasPrecedence) {
  auto retention = [](std::vector<config_entry> e) {
    broker_config_layers b(static_config(std::move(e)));
    return effective_topic_configs({}, b).get_int("retention.ms");
  };
  EXPECT_EQ(retention({}), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(retention({{"log.retention.hours", "100", "t"}}), 100LL * 3600 * 1000);
  EXPECT_EQ(retention({{"log.retention.hours", "100", "t"}, {"log.retention.minutes", "5", "t"}}), 5 * 60'000);
  EXPECT_EQ(retention({{"log.retention.minutes", "5", "t"}, {"log.retention.ms", "42", "t"}}), 42);
  EXPECT_EQ(retention({{"log.retention.hours", "-3", "t"}}), -1);  // any negative means forever

  broker_config_layers b(static_config({{"log.flush.scheduler.interval.ms", "5000", "t"},
                                        {"log.roll.hours", "2", "t"},
                                        {"log.roll.jitter.hours", "1", "t"},
                                        {"message.max.bytes", "2000000", "t"},
                                        {"log.cleanup.policy", "compact", "t"},
                                        {"log.cleaner.min.cleanable.ratio", "0.25", "t"}}));
  auto v = effective_topic_configs({}, b);
  EXPECT_EQ(v.get_int("flush.ms"), 5000);  // log.flush.interval.ms unset: the scheduler interval
  EXPECT_EQ(v.get_int("segment.ms"), 2 * 3'600'000);
  EXPECT_EQ(v.get_int("segment.jitter.ms"), 3'600'000);
  EXPECT_EQ(v.get_int("max.message.bytes"), 2000000);
  EXPECT_EQ(v.get_list("cleanup.policy"), std::vector<std::string>{"compact"});
  EXPECT_DOUBLE_EQ(v.get_double("min.cleanable.dirty.ratio"), 0.25);
  EXPECT_FALSE(v.get_bool("remote.storage.enable"));  // no broker synonym: LogConfig's default
  EXPECT_FALSE(v.is_override("flush.ms"));
}

TEST(EffectiveTopicConfigs, OverridesWinAndInvalidStoredOverridesFallBack) {
  broker_config_layers b(static_config({{"log.segment.bytes", "2097152", "t"}}));
  auto v = effective_topic_configs(
      {{"segment.bytes", "4194304"}, {"retention.ms", "bogus"}, {"no.such.key", "1"}, {"cleanup.policy", ""}}, b);
  EXPECT_EQ(v.get_int("segment.bytes"), 4194304);
  EXPECT_TRUE(v.is_override("segment.bytes"));
  EXPECT_EQ(v.get_int("retention.ms"), 604800000);
  EXPECT_FALSE(v.is_override("retention.ms"));
  EXPECT_TRUE(v.get_list("cleanup.policy").empty());
  EXPECT_TRUE(v.is_override("cleanup.policy"));
}

TEST(EffectiveTopicConfigs, DynamicBrokerValuesLayerOverStaticOnes) {
  broker_config base = static_config({{"log.segment.bytes", "2097152", "t"}, {"log.retention.hours", "100", "t"}});
  {
    broker_config_layers b(base, {{"log.segment.bytes", "3145728"}});
    EXPECT_EQ(effective_topic_configs({}, b).get_int("segment.bytes"), 3145728);
  }
  {
    broker_config_layers b(base, {{"log.segment.bytes", "3145728"}}, {{"log.segment.bytes", "4194304"}});
    EXPECT_EQ(effective_topic_configs({}, b).get_int("segment.bytes"), 4194304);
  }
  {
    // A dynamic log.retention.ms hides the static hours; a read-only key
    // (log.retention.hours) or an unparsable value given dynamically is ignored.
    broker_config_layers b(base, {{"log.retention.ms", "777777"}, {"log.retention.hours", "1"}},
                           {{"log.segment.bytes", "x"}});
    auto v = effective_topic_configs({}, b);
    EXPECT_EQ(v.get_int("retention.ms"), 777777);
    EXPECT_EQ(v.get_int("segment.bytes"), 2097152);
    EXPECT_EQ(b.current_text("log.retention.hours"), "168");
    EXPECT_EQ(b.dynamic_default().count("log.retention.hours"), 0u);
  }
  {
    // Per-broker-only keys are ignored in the cluster-wide defaults.
    broker_config_layers b(base, {{"listeners", "PLAINTEXT://:1"}}, {{"listeners", "PLAINTEXT://:2"}});
    EXPECT_EQ(b.dynamic_default().count("listeners"), 0u);
    EXPECT_EQ(b.current_text("listeners"), "PLAINTEXT://:2");
  }
}

}  // namespace
}  // namespace hw::config
