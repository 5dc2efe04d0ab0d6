#include "config/topic_configs_layers.h"

#include <algorithm>
#include <array>
#include <span>

#include "config/listener_security.h"
#include "config/value_parse.h"

namespace hw::config {
namespace {

// The broker keys Highwater knows that Kafka 4.3 lets change dynamically
// (DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS and its update modes).
constexpr std::array<std::string_view, 16> kPerBroker = {
    "listener.security.protocol.map", "listeners", "principal.builder.class", "sasl.enabled.mechanisms",
    "sasl.mechanism.inter.broker.protocol", "ssl.client.auth", "ssl.key.password", "ssl.keystore.certificate.chain",
    "ssl.keystore.key", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.type",
    "ssl.truststore.certificates", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type",
};
constexpr std::array<std::string_view, 46> kClusterWide = {
    "background.threads", "compression.gzip.level", "compression.lz4.level", "compression.type",
    "compression.zstd.level", "group.consumer.assignment.interval.ms", "group.share.assignment.interval.ms",
    "group.streams.assignment.interval.ms", "log.cleaner.backoff.ms", "log.cleaner.dedupe.buffer.size",
    "log.cleaner.delete.retention.ms", "log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.size",
    "log.cleaner.max.compaction.lag.ms", "log.cleaner.min.cleanable.ratio", "log.cleaner.min.compaction.lag.ms",
    "log.cleaner.threads", "log.cleanup.policy", "log.flush.interval.messages", "log.flush.interval.ms",
    "log.index.interval.bytes", "log.index.size.max.bytes", "log.local.retention.bytes", "log.local.retention.ms",
    "log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms", "log.message.timestamp.type",
    "log.preallocate", "log.retention.bytes", "log.retention.ms", "log.roll.jitter.ms", "log.roll.ms",
    "log.segment.bytes", "log.segment.delete.delay.ms", "max.connection.creation.rate", "max.connections",
    "max.connections.per.ip", "max.connections.per.ip.overrides", "message.max.bytes", "min.insync.replicas",
    "num.io.threads", "num.network.threads", "num.recovery.threads.per.data.dir", "num.replica.fetchers",
    "producer.id.expiration.ms", "unclean.leader.election.enable",
};

bool contains(std::span<const std::string_view> set, std::string_view key) {
  return std::find(set.begin(), set.end(), key) != set.end();
}

// Keeps the entries Kafka would apply at this level.
config_map usable(config_map in, bool cluster_wide) {
  for (auto it = in.begin(); it != in.end();) {
    const config_key* key = find_broker_key(it->first);
    dynamic_mode mode = broker_dynamic_mode(it->first);
    bool keep = key && mode != dynamic_mode::read_only && !(cluster_wide && mode == dynamic_mode::per_broker) &&
                std::holds_alternative<config_value>(parse_value(*key, it->second));
    // A listener's TLS stores, altered per broker (validated when altered).
    keep = keep || (!cluster_wide && listener_tls_reconfigurable(it->first));
    it = keep ? std::next(it) : in.erase(it);
  }
  return in;
}

// Kafka's overrideProps: a dynamic value replaces the key and hides its synonyms.
void overlay(config_map& props, const config_map& dynamic) {
  for (const auto& [key, value] : dynamic) {
    // A listener's override hides nothing but itself.
    if (listener_base_key(key)) {
      props[key] = value;
      continue;
    }
    for (std::string_view s : broker_key_synonyms(key)) {
      if (auto it = props.find(s); it != props.end()) props.erase(it);
    }
    props[key] = value;
  }
}

}  // namespace

dynamic_mode broker_dynamic_mode(std::string_view key) {
  if (contains(kPerBroker, key)) return dynamic_mode::per_broker;
  if (contains(kClusterWide, key)) return dynamic_mode::cluster_wide;
  return dynamic_mode::read_only;
}

std::vector<std::string_view> broker_key_synonyms(std::string_view key) {
  // A listener's override has the key it overrides as its synonym.
  if (auto base = listener_base_key(key)) return {key, *base};
  if (key == "log.roll.ms" || key == "log.roll.hours") return {"log.roll.ms", "log.roll.hours"};
  if (key == "log.roll.jitter.ms" || key == "log.roll.jitter.hours")
    return {"log.roll.jitter.ms", "log.roll.jitter.hours"};
  // Only this direction: log.flush.scheduler.interval.ms is the fallback of
  // log.flush.interval.ms, not the other way round.
  if (key == "log.flush.interval.ms") return {"log.flush.interval.ms", "log.flush.scheduler.interval.ms"};
  if (key == "log.retention.ms" || key == "log.retention.minutes" || key == "log.retention.hours")
    return {"log.retention.ms", "log.retention.minutes", "log.retention.hours"};
  return {key};
}

broker_config_layers::broker_config_layers(const broker_config& static_config, config_map dynamic_default,
                                           config_map dynamic_broker)
    : node_id_(static_config.node_id),
      dynamic_default_(usable(std::move(dynamic_default), true)),
      dynamic_broker_(usable(std::move(dynamic_broker), false)) {
  for (const auto& [key, origin] : static_config.explicitly_set) {
    auto it = static_config.values.find(key);
    if (it != static_config.values.end() && !std::holds_alternative<std::monostate>(it->second))
      static_.emplace(key, value_to_string(it->second));
  }
  for (const auto& [key, text] : static_config.listener_prefixed) static_.emplace(key, text);
  for (const config_key& key : broker_config_keys()) {
    if (auto text = key.default_text()) defaults_.emplace(std::string(key.name), std::move(*text));
  }
  merged_ = static_;
  overlay(merged_, dynamic_default_);
  overlay(merged_, dynamic_broker_);
}

std::optional<std::string> broker_config_layers::current_text(std::string_view key) const {
  if (auto it = merged_.find(key); it != merged_.end()) return it->second;
  if (auto it = defaults_.find(key); it != defaults_.end()) return it->second;
  return std::nullopt;
}

}  // namespace hw::config
