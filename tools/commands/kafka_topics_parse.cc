// The pure parts of kafka-topics.sh: its argument formats, the --topic
// filter, the partition conditions of the describe report flags and the
// lines --describe prints.

// GCC 12 warns about std::function inside <regex> being maybe-uninitialized
// (a known false positive of libstdc++'s regex compiler at -O2).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "config/topic_configs.h"
#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {
namespace {

std::string join_ints(const std::vector<int32_t>& ids, const char* separator) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? separator : "") + std::to_string(ids[i]);
  return out;
}

// ToolsUtils.duplicates: the repeated ids, as the HashSet<Integer> holding
// them iterates (Integer.hashCode is the value).
std::vector<int32_t> duplicates(const std::vector<int32_t>& ids) {
  std::set<int32_t> seen, repeated;
  std::vector<int32_t> in_order;
  for (int32_t id : ids)
    if (!seen.insert(id).second && repeated.insert(id).second) in_order.push_back(id);
  java::hash_order set;
  for (size_t i = 0; i < in_order.size(); ++i) set.put(in_order[i], i);
  std::vector<int32_t> out;
  for (size_t i : set.order()) out.push_back(in_order[i]);
  return out;
}

bool is_java_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r'; }

// s.split("\\s*=\\s*"): each '=' with the blanks around it separates; trailing
// empty parts are dropped, a leading one is kept.
std::vector<std::string> split_on_equals(std::string_view s) {
  std::vector<std::string> parts;
  size_t off = 0;
  bool matched = false;
  for (size_t eq; (eq = s.find('=', off)) != std::string_view::npos;) {
    size_t start = eq;
    while (start > off && is_java_space(s[start - 1])) --start;
    size_t end = eq + 1;
    while (end < s.size() && is_java_space(s[end])) ++end;
    parts.emplace_back(s.substr(off, start - off));
    off = end;
    matched = true;
  }
  if (!matched) return {std::string(s)};
  parts.emplace_back(s.substr(off));
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

// The order LogConfig's ConfigDef parses topic configs in (Kafka 4.3), which
// decides which of several bad values is reported.
constexpr const char* define_order[] = {
    "segment.bytes", "segment.ms", "segment.jitter.ms", "segment.index.bytes", "flush.messages", "flush.ms",
    "retention.bytes", "retention.ms", "max.message.bytes", "index.interval.bytes", "delete.retention.ms",
    "min.compaction.lag.ms", "max.compaction.lag.ms", "file.delete.delay.ms", "min.cleanable.dirty.ratio",
    "cleanup.policy", "unclean.leader.election.enable", "min.insync.replicas", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level", "preallocate",
    "message.timestamp.type", "message.timestamp.before.max.ms", "message.timestamp.after.max.ms",
    "leader.replication.throttled.replicas", "follower.replication.throttled.replicas", "remote.storage.enable",
    "local.retention.ms", "local.retention.bytes", "remote.log.copy.disable", "remote.log.delete.on.disable",
};

// LogConfig knows this internal key too; the broker decides about it.
constexpr std::string_view internal_segment_bytes = "internal.segment.bytes";

const char* const invalid_configuration = "org.apache.kafka.common.errors.InvalidConfigurationException";

bool validate_configs(const std::vector<std::pair<std::string, std::string>>& props, topic_error* error) {
  for (const auto& [key, value] : props) {
    if (key != internal_segment_bytes && !config::find_topic_key(key)) {
      *error = {invalid_configuration, "Unknown topic config name: " + key};
      return false;
    }
  }
  std::vector<std::string> order(std::begin(define_order), std::end(define_order));
  std::vector<std::string> rest;
  for (const auto& kv : props)
    if (std::find(order.begin(), order.end(), kv.first) == order.end()) rest.push_back(kv.first);
  std::sort(rest.begin(), rest.end());
  order.insert(order.end(), rest.begin(), rest.end());
  int64_t min_lag = 0, max_lag = INT64_MAX;
  for (const auto& name : order) {
    auto it = std::find_if(props.begin(), props.end(), [&](const auto& kv) { return kv.first == name; });
    if (it == props.end() || name == internal_segment_bytes) continue;
    if (auto bad = config::validate_topic_config(name, it->second)) {
      *error = {"org.apache.kafka.common.config.ConfigException", bad->message};
      return false;
    }
    const config::topic_config_key* key = config::find_topic_key(name);
    if (name == "min.compaction.lag.ms") min_lag = std::get<int64_t>(config::parse_topic_value(*key, it->second));
    if (name == "max.compaction.lag.ms") max_lag = std::get<int64_t>(config::parse_topic_value(*key, it->second));
  }
  if (min_lag > max_lag) {
    *error = {invalid_configuration, "conflict topic config setting min.compaction.lag.ms (" + std::to_string(min_lag) +
                                         ") > max.compaction.lag.ms (" + std::to_string(max_lag) + ")"};
    return false;
  }
  return true;
}

}  // namespace

bool parse_replica_assignment(std::string_view text, std::vector<std::vector<int32_t>>* out, topic_error* error) {
  out->clear();
  for (const std::string& partition : java_split(text, ',')) {
    std::vector<int32_t> brokers;
    for (const std::string& part : java_split(partition, ':')) {
      const std::string id = java_trim(part);
      auto parsed = java_parse_int(id);
      if (!parsed) {
        *error = {"java.lang.NumberFormatException", number_format_message(id)};
        return false;
      }
      brokers.push_back(*parsed);
    }
    if (auto dups = duplicates(brokers); !dups.empty()) {
      *error = {"org.apache.kafka.tools.AdminCommandFailedException",
                "Partition replica lists may not contain duplicate entries: " + join_ints(dups, ",")};
      return false;
    }
    out->push_back(brokers);
    if (out->back().size() != out->front().size()) {
      *error = {"org.apache.kafka.tools.AdminOperationException",
                "Partition " + std::to_string(out->size() - 1) + " has different replication factor: [" +
                    join_ints(brokers, ", ") + "]"};
      return false;
    }
  }
  return true;
}

bool parse_topic_configs(const std::vector<std::string>& values, std::vector<std::pair<std::string, std::string>>* out,
                         topic_error* error) {
  std::vector<std::vector<std::string>> pairs;
  for (const auto& v : values) pairs.push_back(split_on_equals(v));
  if (!std::all_of(pairs.begin(), pairs.end(), [](const auto& p) { return p.size() == 2; })) {
    *error = {"java.lang.IllegalArgumentException",
              "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\"."};
    return false;
  }
  // Into a HashMap: a repeated key keeps its first place and its last value.
  std::vector<std::string> keys;
  std::map<std::string, std::string> value_of;
  for (const auto& p : pairs) {
    std::string key = java_trim(p[0]);
    if (!value_of.count(key)) keys.push_back(key);
    value_of[key] = java_trim(p[1]);
  }
  out->clear();
  for (const auto& key : java::hash_map_order(keys)) out->emplace_back(key, value_of[key]);
  return validate_configs(*out, error);
}

bool include_list::make(std::string_view raw, include_list* out, std::string* error) {
  std::string text;
  for (char c : java_trim(raw)) {
    if (c == ' ') continue;
    text += c == ',' ? '|' : c;
  }
  // Property files may bring quotes: drop them at either end.
  const size_t first = text.find_first_not_of("\"'");
  text = first == std::string::npos ? std::string() : text.substr(first);
  text.erase(text.find_last_not_of("\"'") + 1);
  try {
    out->re_ = std::regex(text, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    *error = text + " is an invalid regex.";
    return false;
  }
  out->text_ = std::move(text);
  return true;
}

bool include_list::allowed(const std::string& topic, bool exclude_internal) const {
  return std::regex_match(topic, re_) && !(is_internal_topic(topic) && exclude_internal);
}

bool is_internal_topic(std::string_view name) {
  return name == "__consumer_offsets" || name == "__transaction_state" || name == "__share_group_state";
}

bool has_collision_chars(std::string_view name) { return name.find_first_of("._") != std::string_view::npos; }

int replication_factor(const partition_view& p) {
  if (p.reassigning) {
    const auto& r = *p.reassigning;
    // A reassignment that completed meanwhile no longer touches the replicas.
    const bool in_progress = std::any_of(p.replicas.begin(), p.replicas.end(), [&](int32_t id) {
      return std::count(r.adding.begin(), r.adding.end(), id) || std::count(r.removing.begin(), r.removing.end(), id);
    });
    if (in_progress) return static_cast<int>(r.replicas.size() - r.adding.size());
  }
  return static_cast<int>(p.replicas.size());
}

bool under_replicated(const partition_view& p) { return replication_factor(p) - static_cast<int>(p.isr.size()) > 0; }

bool under_min_isr(const partition_view& p, int min_isr) {
  return !p.leader || static_cast<int>(p.isr.size()) < min_isr;
}

bool at_min_isr(const partition_view& p, int min_isr) { return static_cast<int>(p.isr.size()) == min_isr; }

bool unavailable(const partition_view& p, const std::vector<int32_t>& live_brokers) {
  return !p.leader || std::find(live_brokers.begin(), live_brokers.end(), *p.leader) == live_brokers.end();
}

std::string topic_line(const std::string& topic, const protocol::uuid& id, size_t partitions, int replication_factor,
                       const std::vector<std::pair<std::string, std::optional<std::string>>>& non_default_configs) {
  std::string line = "Topic: " + topic;
  if (!id.is_zero()) line += "\tTopicId: " + id.to_string();
  line += "\tPartitionCount: " + std::to_string(partitions);
  line += "\tReplicationFactor: " + std::to_string(replication_factor);
  line += "\tConfigs: ";
  for (size_t i = 0; i < non_default_configs.size(); ++i) {
    const auto& [name, value] = non_default_configs[i];
    line += (i ? "," : "") + name + "=" + value.value_or("null");  // Java prints a null value as null
  }
  return line;
}

std::string partition_line(const std::string& topic, const partition_view& p) {
  std::string line = "\tTopic: " + topic + "\tPartition: " + std::to_string(p.partition);
  line += "\tLeader: " + (p.leader ? std::to_string(*p.leader) : std::string("none"));
  line += "\tReplicas: " + join_ints(p.replicas, ",");
  line += "\tIsr: " + join_ints(p.isr, ",");
  if (p.reassigning) {
    line += "\tAdding Replicas: " + join_ints(p.reassigning->adding, ",");
    line += "\tRemoving Replicas: " + join_ints(p.reassigning->removing, ",");
  }
  line += "\tElr: " + (p.elr ? join_ints(*p.elr, ",") : std::string("N/A"));
  line += "\tLastKnownElr: " + (p.last_known_elr ? join_ints(*p.last_known_elr, ",") : std::string("N/A"));
  return line;
}

}  // namespace hw::tools::topics
