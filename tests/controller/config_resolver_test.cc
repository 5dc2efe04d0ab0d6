// The one precedence every reader of a topic's effective config goes
// through (controller/metadata/config_resolver.h): topic override → this
// node's dynamic broker config → cluster-wide dynamic default → static
// config → Kafka's default, checked for every topic config and the broker
// key it falls back to.

#include "controller/metadata/config_resolver.h"

#include <gtest/gtest.h>

#include <set>

#include "config/topic_configs.h"
#include "config/topic_configs_layers.h"
#include "config/value_parse.h"
#include "controller/metadata/delta.h"
#include "node_ids.h"
#include "snapshot_support.h"

namespace hw::controller {
namespace {

constexpr int32_t self = 1;

// An image holding configs, written through ConfigRecords as the log writes them.
class configs_image {
 public:
  void set(config_resource_type type, const std::string& name, const std::string& key,
           std::optional<std::string> value) {
    std::string error;
    image_ = replay_all(image_, {testing::config(type, name, key, std::move(value))}, storage::offset{++offset_},
                        leader_epoch(1), &error);
    ASSERT_TRUE(image_) << error;
  }
  const metadata_image& operator*() const { return *image_; }

 private:
  std::shared_ptr<const metadata_image> image_ = std::make_shared<const metadata_image>();
  int64_t offset_ = -1;
};

std::shared_ptr<const config::broker_config> static_config(const std::map<std::string, std::string>& set) {
  auto c = std::make_shared<config::broker_config>();
  c->node_id = self;
  for (const auto& [key, text] : set) {
    const config::config_key* k = config::find_broker_key(key);
    EXPECT_TRUE(k) << key;
    auto parsed = config::parse_value(*k, text);
    EXPECT_TRUE(std::holds_alternative<config::config_value>(parsed)) << key << "=" << text;
    c->values[key] = std::get<config::config_value>(parsed);
    c->explicitly_set[key] = "test";
  }
  return c;
}

TEST(ConfigResolver, MinIsrPrecedenceAndCap) {
  configs_image image;
  config_resolver resolver(static_config({{"min.insync.replicas", "2"}}), self);
  topic_image topic;
  topic.name = "t";
  topic.partitions[0].replicas = ids({1, 2, 3});
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 2) << "static";
  image.set(config_resource_type::broker, "", "min.insync.replicas", "3");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 3) << "cluster default";
  image.set(config_resource_type::broker, "1", "min.insync.replicas", "1");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 1) << "this node";
  image.set(config_resource_type::broker, "2", "min.insync.replicas", "3");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 1) << "another node's is not ours";
  image.set(config_resource_type::topic, "t", "min.insync.replicas", "2");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 2) << "topic override";
  image.set(config_resource_type::topic, "t", "min.insync.replicas", "7");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 3) << "capped at the replication factor";
  image.set(config_resource_type::topic, "t", "min.insync.replicas", "0");
  EXPECT_EQ(resolver.effective_min_isr(*image, topic), 1) << "an override that does not validate is skipped";
  EXPECT_EQ(config_resolver(static_config({}), self).effective_min_isr(*configs_image(), topic), 1)
      << "Kafka's default";
}

// Texts a key may take: its rule's own values and bounds, and a spread of
// numbers, booleans and words; the caller keeps those that validate.
std::vector<std::string> candidates(const config::topic_config_key& key) {
  std::vector<std::string> out;
  for (std::string_view v : key.check.values) out.emplace_back(v);
  if (key.check.min_int) {
    out.push_back(std::to_string(*key.check.min_int));
    out.push_back(std::to_string(*key.check.min_int + 1));
  }
  for (const char* v : {"1", "2", "1000", "2000", "1048576", "2097152", "0.25", "0.5", "true", "false", "*",
                        "0:1", "delete", "compact", "CreateTime", "LogAppendTime"}) {
    out.emplace_back(v);
  }
  return out;
}

// Two texts valid for the topic key and for its broker synonym that give
// different values; empty when the key has no two.
std::vector<std::string> two_values(const config::topic_config_key& key, const config::config_key* broker_key) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& text : candidates(key)) {
    if (config::validate_topic_config(key.name, text)) continue;
    if (broker_key && !std::holds_alternative<config::config_value>(config::parse_value(*broker_key, text))) continue;
    std::string value = config::value_to_string(config::parse_topic_value(key, text));
    if (!seen.insert(value).second) continue;
    out.push_back(text);
    if (out.size() == 2) break;
  }
  return out.size() == 2 ? out : std::vector<std::string>{};
}

TEST(ConfigResolver, EveryTopicConfigFollowsThePrecedence) {
  size_t checked_topic = 0, checked_layers = 0;
  for (const config::topic_config_key& key : config::topic_config_keys()) {
    SCOPED_TRACE(std::string(key.name));
    // The broker key it falls back to first, when written in the same unit.
    const config::broker_synonym* synonym = nullptr;
    for (const auto& s : key.synonyms) {
      if (s.in == config::broker_synonym::unit::same && config::find_broker_key(s.name)) {
        synonym = &s;
        break;
      }
    }
    const config::config_key* broker_key = synonym ? config::find_broker_key(synonym->name) : nullptr;
    const std::vector<std::string> ab = two_values(key, broker_key);
    if (ab.empty()) continue;
    const std::string& a = ab[0];
    const std::string& b = ab[1];
    auto value = [&](const config::config_value& v) { return config::value_to_string(v); };
    auto expect = [&](const std::string& text) { return value(config::parse_topic_value(key, text)); };

    configs_image image;
    const std::string topic = "t";
    if (!broker_key) {
      config_resolver resolver(static_config({}), self);
      image.set(config_resource_type::topic, topic, std::string(key.name), a);
      EXPECT_EQ(value(resolver.topic_value(*image, topic, key.name)), expect(a));
      EXPECT_EQ(value(resolver.topic(*image, topic).get(key.name)), expect(a)) << "one key and all keys agree";
      ++checked_topic;
      continue;
    }
    const std::string bkey(synonym->name);
    const config::dynamic_mode mode = config::broker_dynamic_mode(bkey);
    config_resolver resolver(static_config({{bkey, a}}), self);
    auto now = [&] {
      std::string one = value(resolver.topic_value(*image, topic, key.name));
      EXPECT_EQ(one, value(resolver.topic(*image, topic).get(key.name))) << "one key and all keys agree";
      return one;
    };
    EXPECT_EQ(now(), expect(a)) << "static " << bkey;
    if (mode == config::dynamic_mode::cluster_wide) {
      image.set(config_resource_type::broker, "", bkey, b);
      EXPECT_EQ(now(), expect(b)) << "cluster default over static";
    }
    if (mode != config::dynamic_mode::read_only) {
      image.set(config_resource_type::broker, std::to_string(self), bkey, a);
      EXPECT_EQ(now(), expect(a)) << "this node over the cluster default";
      image.set(config_resource_type::broker, std::to_string(self + 1), bkey, b);
      EXPECT_EQ(now(), expect(a)) << "another node's is not ours";
      ++checked_layers;
    }
    image.set(config_resource_type::topic, topic, std::string(key.name), b);
    EXPECT_EQ(now(), expect(b)) << "topic override over every broker layer";
    image.set(config_resource_type::topic, topic, std::string(key.name), std::nullopt);
    EXPECT_EQ(now(), expect(a)) << "override removed";
    if (mode != config::dynamic_mode::read_only) {
      image.set(config_resource_type::broker, std::to_string(self), bkey, std::nullopt);
      EXPECT_EQ(now(), expect(mode == config::dynamic_mode::cluster_wide ? b : a)) << "this node's removed";
    }
    ++checked_topic;
  }
  // Guards the candidate lists: most topic configs must be exercised.
  EXPECT_GE(checked_topic, 25u);
  EXPECT_GE(checked_layers, 15u);
}

TEST(ConfigResolver, BrokerLayersAreRebuiltWhenBrokerConfigsChange) {
  configs_image image;
  config_resolver resolver(static_config({}), self);
  EXPECT_EQ(resolver.broker(*image).current_text("log.retention.ms"), std::nullopt);
  image.set(config_resource_type::broker, "", "log.retention.ms", "5000");
  EXPECT_EQ(resolver.broker(*image).current_text("log.retention.ms"), "5000");
  image.set(config_resource_type::topic, "t", "retention.ms", "7000");
  EXPECT_EQ(resolver.broker(*image).current_text("log.retention.ms"), "5000");
  image.set(config_resource_type::broker, "1", "log.retention.ms", "6000");
  EXPECT_EQ(resolver.broker(*image).current_text("log.retention.ms"), "6000");
  EXPECT_EQ(std::get<int64_t>(resolver.topic_value(*image, "t", "retention.ms")), 7000);
  EXPECT_EQ(std::get<int64_t>(resolver.topic_value(*image, "u", "retention.ms")), 6000);
}

}  // namespace
}  // namespace hw::controller
