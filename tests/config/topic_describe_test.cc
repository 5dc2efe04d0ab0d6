// Expected answers are those of a Kafka 4.3.1 broker in the same situation
// (kafka-configs --describe --all), started with
//   log.retention.hours=100, log.segment.bytes=2097152,
//   log.flush.scheduler.interval.ms=5000, message.max.bytes=2000000
// then given cluster-wide dynamic defaults log.retention.ms=777777,
// log.cleaner.min.cleanable.ratio=0.3, log.segment.bytes=3145728,
// min.insync.replicas=1, broker 1 the dynamic log.flush.interval.ms=9000, and
// topic t the overrides retention.ms=12345, cleanup.policy=compact,delete.
#include "config/topic_configs_describe.h"

#include <gtest/gtest.h>

#include <sstream>

namespace hw::config {
namespace {

broker_config_layers kafka_scenario() {
  std::vector<config_entry> entries = {{"node.id", "1", "f"},
                                       {"process.roles", "broker,controller", "f"},
                                       {"log.retention.hours", "100", "f"},
                                       {"log.segment.bytes", "2097152", "f"},
                                       {"log.flush.scheduler.interval.ms", "5000", "f"},
                                       {"message.max.bytes", "2000000", "f"}};
  auto r = build_broker_config(entries);
  EXPECT_TRUE(r.config);
  return broker_config_layers(*r.config,
                              {{"log.retention.ms", "777777"},
                               {"log.cleaner.min.cleanable.ratio", "0.3"},
                               {"log.segment.bytes", "3145728"},
                               {"min.insync.replicas", "1"}},
                              {{"log.flush.interval.ms", "9000"}});
}

const char* source_name(config_source s) {
  switch (s) {
    case config_source::topic_config: return "DYNAMIC_TOPIC_CONFIG";
    case config_source::dynamic_broker_config: return "DYNAMIC_BROKER_CONFIG";
    case config_source::dynamic_default_broker_config: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case config_source::static_broker_config: return "STATIC_BROKER_CONFIG";
    case config_source::default_config: return "DEFAULT_CONFIG";
    case config_source::unknown: return "UNKNOWN";
  }
  return "?";
}

// ConfigCommand's line for an entry.
std::string line(const described_config& c) {
  std::ostringstream out;
  out << c.name << "=" << c.value.value_or("null") << " sensitive=" << (c.is_sensitive ? "true" : "false")
      << " synonyms={";
  for (size_t i = 0; i < c.synonyms.size(); ++i) {
    const auto& s = c.synonyms[i];
    out << (i ? ", " : "") << source_name(s.source) << ":" << s.name << "=" << s.value.value_or("null");
  }
  out << "}";
  return out.str();
}

std::map<std::string, described_config> by_name(std::vector<described_config> v) {
  std::map<std::string, described_config> out;
  for (auto& c : v) out.emplace(c.name, std::move(c));
  return out;
}

TEST(DescribeTopicConfigs, MatchesKafkaLineByLine) {
  auto broker = kafka_scenario();
  describe_options o;
  o.include_synonyms = true;
  auto configs = describe_topic_configs({{"retention.ms", "12345"}, {"cleanup.policy", "compact,delete"}}, broker, o);
  std::vector<std::string> lines;
  for (const auto& c : configs) lines.push_back(line(c));
  const std::vector<std::string> kafka = {
      "cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}",
      "compression.gzip.level=-1 sensitive=false synonyms={DEFAULT_CONFIG:compression.gzip.level=-1}",
      "compression.lz4.level=9 sensitive=false synonyms={DEFAULT_CONFIG:compression.lz4.level=9}",
      "compression.type=producer sensitive=false synonyms={DEFAULT_CONFIG:compression.type=producer}",
      "compression.zstd.level=3 sensitive=false synonyms={DEFAULT_CONFIG:compression.zstd.level=3}",
      "delete.retention.ms=86400000 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.delete.retention.ms=86400000}",
      "file.delete.delay.ms=60000 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.delete.delay.ms=60000}",
      "flush.messages=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.flush.interval.messages=9223372036854775807}",
      "flush.ms=9000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.flush.interval.ms=9000, STATIC_BROKER_CONFIG:log.flush.scheduler.interval.ms=5000, DEFAULT_CONFIG:log.flush.scheduler.interval.ms=9223372036854775807}",
      "follower.replication.throttled.replicas= sensitive=false synonyms={}",
      "index.interval.bytes=4096 sensitive=false synonyms={DEFAULT_CONFIG:log.index.interval.bytes=4096}",
      "leader.replication.throttled.replicas= sensitive=false synonyms={}",
      "local.retention.bytes=-2 sensitive=false synonyms={DEFAULT_CONFIG:log.local.retention.bytes=-2}",
      "local.retention.ms=-2 sensitive=false synonyms={DEFAULT_CONFIG:log.local.retention.ms=-2}",
      "max.compaction.lag.ms=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.max.compaction.lag.ms=9223372036854775807}",
      "max.message.bytes=2000000 sensitive=false synonyms={STATIC_BROKER_CONFIG:message.max.bytes=2000000, DEFAULT_CONFIG:message.max.bytes=1048588}",
      "message.timestamp.after.max.ms=3600000 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.after.max.ms=3600000}",
      "message.timestamp.before.max.ms=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.before.max.ms=9223372036854775807}",
      "message.timestamp.type=CreateTime sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.type=CreateTime}",
      "min.cleanable.dirty.ratio=0.3 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.min.cleanable.ratio=0.3, DEFAULT_CONFIG:log.cleaner.min.cleanable.ratio=0.5}",
      "min.compaction.lag.ms=0 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.min.compaction.lag.ms=0}",
      "min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}",
      "preallocate=false sensitive=false synonyms={DEFAULT_CONFIG:log.preallocate=false}",
      "remote.log.copy.disable=false sensitive=false synonyms={}",
      "remote.log.delete.on.disable=false sensitive=false synonyms={}",
      "remote.storage.enable=false sensitive=false synonyms={}",
      "retention.bytes=-1 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.bytes=-1}",
      "retention.ms=12345 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=12345, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=777777, STATIC_BROKER_CONFIG:log.retention.hours=100, DEFAULT_CONFIG:log.retention.hours=168}",
      "segment.bytes=3145728 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=3145728, STATIC_BROKER_CONFIG:log.segment.bytes=2097152, DEFAULT_CONFIG:log.segment.bytes=1073741824}",
      "segment.index.bytes=10485760 sensitive=false synonyms={DEFAULT_CONFIG:log.index.size.max.bytes=10485760}",
      "segment.jitter.ms=0 sensitive=false synonyms={}",
      "segment.ms=604800000 sensitive=false synonyms={}",
      "unclean.leader.election.enable=false sensitive=false synonyms={DEFAULT_CONFIG:unclean.leader.election.enable=false}",
  };
  EXPECT_EQ(lines, kafka);
}

TEST(DescribeTopicConfigs, SourceTypeReadOnlyDocumentationAndKeyFilter) {
  auto broker = kafka_scenario();
  describe_options o;  // no synonyms, no documentation
  auto all = by_name(describe_topic_configs({{"retention.ms", "+5"}}, broker, o));
  EXPECT_EQ(all.at("retention.ms").value, "5");
  EXPECT_EQ(all.at("retention.ms").source, config_source::topic_config);
  EXPECT_TRUE(all.at("retention.ms").synonyms.empty());
  EXPECT_EQ(all.at("segment.bytes").source, config_source::dynamic_default_broker_config);
  EXPECT_EQ(all.at("max.message.bytes").source, config_source::static_broker_config);
  EXPECT_EQ(all.at("flush.ms").source, config_source::dynamic_broker_config);
  EXPECT_EQ(all.at("segment.ms").source, config_source::default_config);
  EXPECT_EQ(all.at("min.cleanable.dirty.ratio").type, described_type::float64);
  EXPECT_EQ(all.at("cleanup.policy").type, described_type::list);
  EXPECT_EQ(all.at("retention.ms").type, described_type::int64);
  EXPECT_EQ(all.at("segment.bytes").type, described_type::int32);
  EXPECT_EQ(all.at("preallocate").type, described_type::boolean);
  EXPECT_EQ(all.at("compression.type").type, described_type::string);
  for (const auto& [name, c] : all) {
    EXPECT_FALSE(c.read_only) << name;
    EXPECT_FALSE(c.is_sensitive) << name;
    EXPECT_FALSE(c.documentation) << name;
  }
  o.include_documentation = true;
  o.keys = {"segment.ms", "no.such.config", "preallocate"};
  auto some = describe_topic_configs({}, broker, o);
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].name, "preallocate");
  EXPECT_EQ(some[1].name, "segment.ms");
  EXPECT_TRUE(some[1].documentation && !some[1].documentation->empty());
}

TEST(DescribeTopicConfigs, ListsAreShownParsedWithoutRepeats) {
  // Kafka 4.3.1 after IncrementalAlterConfigs SET cleanup.policy to each text.
  auto broker = kafka_scenario();
  describe_options o;
  o.include_synonyms = true;
  o.keys = {"cleanup.policy"};
  for (auto [text, shown] : std::vector<std::pair<std::string, std::string>>{
           {"compact,compact", "compact"}, {"delete , compact", "delete,compact"}, {" ", ""}}) {
    auto c = describe_topic_configs({{"cleanup.policy", text}}, broker, o);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(line(c[0]), "cleanup.policy=" + shown + " sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=" +
                              shown + ", DEFAULT_CONFIG:log.cleanup.policy=delete}");
  }
}

TEST(DescribeBrokerConfigs, ThisBrokerMatchesKafkaIncludingHiddenStaticSynonyms) {
  auto broker = kafka_scenario();
  describe_options o;
  o.include_synonyms = true;
  auto r = describe_broker_configs("1", broker, o);
  ASSERT_FALSE(r.invalid_request);
  auto all = by_name(r.configs);
  // Kafka lists the dynamic log.flush.interval.ms as hiding the static
  // scheduler interval (value back to its default), and the dynamic
  // log.retention.ms as hiding the static log.retention.hours.
  for (std::string expected : {
           "log.flush.interval.ms=9000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.flush.interval.ms=9000, STATIC_BROKER_CONFIG:log.flush.scheduler.interval.ms=5000, DEFAULT_CONFIG:log.flush.scheduler.interval.ms=9223372036854775807}",
           "log.flush.scheduler.interval.ms=9223372036854775807 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.flush.scheduler.interval.ms=5000, DEFAULT_CONFIG:log.flush.scheduler.interval.ms=9223372036854775807}",
           "log.retention.hours=168 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.retention.hours=100, DEFAULT_CONFIG:log.retention.hours=168}",
           "log.retention.minutes=null sensitive=false synonyms={}",
           "log.retention.ms=777777 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=777777, STATIC_BROKER_CONFIG:log.retention.hours=100, DEFAULT_CONFIG:log.retention.hours=168}",
           "log.roll.hours=168 sensitive=false synonyms={DEFAULT_CONFIG:log.roll.hours=168}",
           "log.roll.ms=null sensitive=false synonyms={}",
           "log.segment.bytes=3145728 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=3145728, STATIC_BROKER_CONFIG:log.segment.bytes=2097152, DEFAULT_CONFIG:log.segment.bytes=1073741824}",
           "message.max.bytes=2000000 sensitive=false synonyms={STATIC_BROKER_CONFIG:message.max.bytes=2000000, DEFAULT_CONFIG:message.max.bytes=1048588}",
           "min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}",
           // Highwater gives node.id and process.roles defaults (Kafka has
           // none, so it lists only the static synonym).
           "node.id=1 sensitive=false synonyms={STATIC_BROKER_CONFIG:node.id=1, DEFAULT_CONFIG:node.id=1}",
           "process.roles=broker,controller sensitive=false synonyms={STATIC_BROKER_CONFIG:process.roles=broker,controller, DEFAULT_CONFIG:process.roles=broker,controller}",
           "ssl.key.password=null sensitive=true synonyms={}",
       }) {
    std::string name = expected.substr(0, expected.find('='));
    ASSERT_TRUE(all.count(name)) << name;
    EXPECT_EQ(line(all.at(name)), expected);
  }
  EXPECT_EQ(r.configs.size(), broker_config_keys().size());
  EXPECT_TRUE(all.at("log.retention.hours").read_only);
  EXPECT_FALSE(all.at("log.retention.ms").read_only);
  EXPECT_FALSE(all.at("listeners").read_only);
  EXPECT_TRUE(all.at("node.id").read_only);
  EXPECT_EQ(all.at("log.retention.hours").source, config_source::static_broker_config);
  EXPECT_EQ(all.at("ssl.key.password").type, described_type::password);
}

TEST(DescribeBrokerConfigs, ClusterDefaultResourceListsOnlyDynamicDefaults) {
  auto broker = kafka_scenario();
  describe_options o;
  o.include_synonyms = true;
  auto r = describe_broker_configs("", broker, o);
  ASSERT_FALSE(r.invalid_request);
  std::vector<std::string> lines;
  for (const auto& c : r.configs) lines.push_back(line(c));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "log.cleaner.min.cleanable.ratio=0.3 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.min.cleanable.ratio=0.3}",
                       "log.retention.ms=777777 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=777777}",
                       "log.segment.bytes=3145728 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=3145728}",
                       "min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}",
                   }));
}

TEST(DescribeBrokerConfigs, OtherBrokerIdsAreInvalidRequests) {
  auto broker = kafka_scenario();
  describe_options o;
  EXPECT_EQ(describe_broker_configs("2", broker, o).invalid_request,
            "Unexpected broker id, expected 1 or empty string, but received 2");
  EXPECT_EQ(describe_broker_configs("abc", broker, o).invalid_request,
            "Broker id must be an integer, but it is: abc");
  EXPECT_FALSE(describe_broker_configs("+1", broker, o).invalid_request);
}

}  // namespace
}  // namespace hw::config
