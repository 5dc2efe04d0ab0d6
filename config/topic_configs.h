#pragma once
// Kafka 4.3's topic-level configs (LogConfig): names, types, Kafka's
// defaults and rules, the broker keys each one defaults from, and the
// validation of a value as CreateTopics / IncrementalAlterConfigs do it,
// with Kafka's wording. Plain constant data and pure functions; no state.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_key.h"

namespace hw::config {

// A broker key a topic config takes its default from, and the unit its
// value is written in (retention.ms <- log.retention.hours is hours).
struct broker_synonym {
  enum class unit : int8_t { same, minutes, hours };
  std::string_view name;
  unit in = unit::same;
};

// Checks Kafka applies that config_key's rule cannot express.
enum class topic_check : int8_t {
  none,
  gzip_level,          // 1..9 or -1
  throttled_replicas,  // "*" or partition:broker,...
};

struct topic_config_key {
  std::string_view name;
  value_type type;
  // LogConfig's own default, as text: used when no broker synonym has a value
  // (remote.*, *.replication.throttled.replicas) and by Highwater when a
  // synonym is not a key it knows.
  std::string_view default_value;
  rule check;
  topic_check special = topic_check::none;
  // In Kafka's order: the first one with a value wins. Empty when the config
  // has no broker-level default.
  std::vector<broker_synonym> synonyms;
  std::string_view doc;
};

// Every topic config, sorted by name (Kafka's LogConfig.configNames order).
std::span<const topic_config_key> topic_config_keys();
const topic_config_key* find_topic_key(std::string_view name);

// Why a topic config change is refused. Maps to Kafka's INVALID_CONFIG (40)
// in CreateTopics, AlterConfigs and IncrementalAlterConfigs.
struct topic_config_error {
  std::string message;
};

// One key and its text as a client sent it: unknown key, unparsable value or
// a broken rule ("Unknown topic config name: foo", "Invalid value -5 for
// configuration retention.ms: Value must be at least -1").
std::optional<topic_config_error> validate_topic_config(std::string_view key, std::string_view value);

// Parses a value already known to be valid for a known key (asserts both).
config_value parse_topic_value(const topic_config_key& key, std::string_view value);

// The text Kafka shows for a typed value in DescribeConfigs (Java's
// spelling: doubles keep a ".0", lists are comma-joined, null is nullopt).
std::optional<std::string> describe_text(const config_value& v);

}  // namespace hw::config
