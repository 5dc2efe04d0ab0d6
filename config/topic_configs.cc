// The table of topic-level configs. Names, types, defaults, rules and broker
// synonyms follow Kafka 4.3.1 (checked against its LogConfig and
// ServerTopicConfigSynonyms); the summaries are ours.

#include "config/topic_configs.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

#include "config/value_parse.h"

namespace hw::config {
namespace {

using T = value_type;
using U = broker_synonym::unit;

const std::vector<topic_config_key>& table() {
  static const std::vector<topic_config_key> keys = {
      {"cleanup.policy", T::list, "delete", rule::list_one_of({"compact", "delete"}), topic_check::none,
       {{"log.cleanup.policy"}},
       "What happens to old segments: delete them (retention), compact them by key, both, or neither (empty list)."},
      {"compression.gzip.level", T::int32, "-1", rule::none(), topic_check::gzip_level, {{"compression.gzip.level"}},
       "gzip level used when compression.type is gzip: 1 to 9, or -1 for the codec's default."},
      {"compression.lz4.level", T::int32, "9", rule::between(1, 17), topic_check::none, {{"compression.lz4.level"}},
       "lz4 level used when compression.type is lz4."},
      {"compression.type", T::string, "producer",
       rule::one_of({"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}), topic_check::none,
       {{"compression.type"}}, "Codec of stored batches; producer keeps the producer's codec."},
      {"compression.zstd.level", T::int32, "3", rule::between(-131072, 22), topic_check::none,
       {{"compression.zstd.level"}}, "zstd level used when compression.type is zstd."},
      {"delete.retention.ms", T::int64, "86400000", rule::at_least(0), topic_check::none,
       {{"log.cleaner.delete.retention.ms"}},
       "How long a tombstone stays in a compacted log after the cleaner reached it, so readers can see the delete."},
      {"file.delete.delay.ms", T::int64, "60000", rule::at_least(0), topic_check::none,
       {{"log.segment.delete.delay.ms"}}, "How long a deleted segment's files stay on disk before removal."},
      {"flush.messages", T::int64, "9223372036854775807", rule::at_least(1), topic_check::none,
       {{"log.flush.interval.messages"}}, "Records appended before the log is forced to disk."},
      {"flush.ms", T::int64, "9223372036854775807", rule::at_least(0), topic_check::none,
       {{"log.flush.interval.ms"}, {"log.flush.scheduler.interval.ms"}},
       "Longest time appended data stays unflushed."},
      {"follower.replication.throttled.replicas", T::list, "", rule::none(), topic_check::throttled_replicas, {},
       "Replicas whose follower fetches are throttled, as partition:broker pairs or *."},
      {"index.interval.bytes", T::int32, "4096", rule::at_least(0), topic_check::none,
       {{"log.index.interval.bytes"}}, "Bytes of log between two offset index entries."},
      {"leader.replication.throttled.replicas", T::list, "", rule::none(), topic_check::throttled_replicas, {},
       "Replicas whose leader-side replication is throttled, as partition:broker pairs or *."},
      {"local.retention.bytes", T::int64, "-2", rule::at_least(-2), topic_check::none,
       {{"log.local.retention.bytes"}},
       "Tiered storage: local bytes kept per partition (-2: as retention.bytes). Not used by Highwater."},
      {"local.retention.ms", T::int64, "-2", rule::at_least(-2), topic_check::none, {{"log.local.retention.ms"}},
       "Tiered storage: how long segments stay local (-2: as retention.ms). Not used by Highwater."},
      {"max.compaction.lag.ms", T::int64, "9223372036854775807", rule::at_least(1), topic_check::none,
       {{"log.cleaner.max.compaction.lag.ms"}},
       "Oldest an uncompacted record may become before the log is compacted regardless of the dirty ratio."},
      {"max.message.bytes", T::int32, "1048588", rule::at_least(0), topic_check::none, {{"message.max.bytes"}},
       "Largest record batch the topic accepts (after compression)."},
      {"message.timestamp.after.max.ms", T::int64, "3600000", rule::at_least(0), topic_check::none,
       {{"log.message.timestamp.after.max.ms"}}, "How far past the broker's clock a CreateTime timestamp may be."},
      {"message.timestamp.before.max.ms", T::int64, "9223372036854775807", rule::at_least(0), topic_check::none,
       {{"log.message.timestamp.before.max.ms"}}, "How far behind the broker's clock a CreateTime timestamp may be."},
      {"message.timestamp.type", T::string, "CreateTime", rule::one_of({"CreateTime", "LogAppendTime"}),
       topic_check::none, {{"log.message.timestamp.type"}},
       "Whether stored timestamps are the producer's or the leader's append time."},
      {"min.cleanable.dirty.ratio", T::float64, "0.5", rule::between_double(0, 1), topic_check::none,
       {{"log.cleaner.min.cleanable.ratio"}}, "Share of the log that must be uncompacted before it is cleaned."},
      {"min.compaction.lag.ms", T::int64, "0", rule::at_least(0), topic_check::none,
       {{"log.cleaner.min.compaction.lag.ms"}}, "Youngest a record may be and still be compacted."},
      {"min.insync.replicas", T::int32, "1", rule::at_least(1), topic_check::none, {{"min.insync.replicas"}},
       "Fewest in-sync replicas an acks=all write needs."},
      {"preallocate", T::boolean, "false", rule::none(), topic_check::none, {{"log.preallocate"}},
       "Whether new segment files are preallocated."},
      {"remote.log.copy.disable", T::boolean, "false", rule::none(), topic_check::none, {},
       "Tiered storage: stop copying segments to remote storage. Not used by Highwater."},
      {"remote.log.delete.on.disable", T::boolean, "false", rule::none(), topic_check::none, {},
       "Tiered storage: delete remote data when remote storage is turned off. Not used by Highwater."},
      {"remote.storage.enable", T::boolean, "false", rule::none(), topic_check::none, {},
       "Tiered storage for this topic; Highwater has none, so only false is accepted."},
      {"retention.bytes", T::int64, "-1", rule::none(), topic_check::none, {{"log.retention.bytes"}},
       "Size per partition above which the oldest segments are deleted; -1 is no limit."},
      {"retention.ms", T::int64, "604800000", rule::at_least(-1), topic_check::none,
       {{"log.retention.ms"}, {"log.retention.minutes", U::minutes}, {"log.retention.hours", U::hours}},
       "Age beyond which segments are deleted; -1 keeps them forever."},
      {"segment.bytes", T::int32, "1073741824", rule::at_least(1048576), topic_check::none, {{"log.segment.bytes"}},
       "Size at which the active segment rolls."},
      {"segment.index.bytes", T::int32, "10485760", rule::at_least(4), topic_check::none,
       {{"log.index.size.max.bytes"}}, "Largest size of a segment's offset or time index."},
      {"segment.jitter.ms", T::int64, "0", rule::at_least(0), topic_check::none,
       {{"log.roll.jitter.ms"}, {"log.roll.jitter.hours", U::hours}},
       "Random amount by which a segment may roll early, so partitions do not roll together."},
      {"segment.ms", T::int64, "604800000", rule::at_least(1), topic_check::none,
       {{"log.roll.ms"}, {"log.roll.hours", U::hours}}, "Age at which the active segment rolls."},
      {"unclean.leader.election.enable", T::boolean, "false", rule::none(), topic_check::none,
       {{"unclean.leader.election.enable"}},
       "Whether a replica outside the ISR and ELR may become leader as a last resort, at the risk of losing data."},
  };
  return keys;
}

std::string invalid(const topic_config_key& key, std::string_view shown, std::string_view why) {
  return "Invalid value " + std::string(shown) + " for configuration " + std::string(key.name) + ": " +
         std::string(why);
}

std::string join(const std::vector<std::string_view>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(sep) : "") + std::string(v[i]);
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Kafka's check of *.replication.throttled.replicas: the literal * or
// partition:broker items (empty items pass, as in Kafka).
std::optional<std::string> check_throttled(const topic_config_key& key, const std::vector<std::string>& items) {
  std::string joined;
  for (const auto& i : items) joined += i;
  if (trim(joined) == "*") return std::nullopt;
  bool ok = true;
  for (const auto& item : items) {
    std::string_view t = trim(item);
    if (t.empty()) continue;
    size_t colon = t.find(':');
    ok = ok && colon != std::string_view::npos && all_digits(t.substr(0, colon)) && all_digits(t.substr(colon + 1));
  }
  if (ok) return std::nullopt;
  std::vector<std::string_view> views(items.begin(), items.end());
  return invalid(key, "[" + join(views, ", ") + "]",
                 std::string(key.name) +
                     " must be the literal '*' or a list of replicas in the following format: "
                     "[partitionId]:[brokerId],[partitionId]:[brokerId],...");
}

// The rule check on a parsed value; Kafka shows the parsed value (so " +5"
// is reported as 5).
std::optional<std::string> check_rule(const topic_config_key& key, const config_value& v) {
  const rule& r = key.check;
  if (key.special == topic_check::gzip_level) {
    int64_t level = std::get<int64_t>(v);
    if (level == -1 || (level >= 1 && level <= 9)) return std::nullopt;
    return invalid(key, std::to_string(level), "Value must be between 1 and 9 or equal to -1");
  }
  if (key.special == topic_check::throttled_replicas) return check_throttled(key, std::get<std::vector<std::string>>(v));
  switch (r.what) {
    case rule::kind::none:
    case rule::kind::non_empty:
      return std::nullopt;
    case rule::kind::range:
      if (auto* i = std::get_if<int64_t>(&v)) {
        if (r.min_int && *i < *r.min_int)
          return invalid(key, std::to_string(*i), "Value must be at least " + std::to_string(*r.min_int));
        if (r.max_int && *i > *r.max_int)
          return invalid(key, std::to_string(*i), "Value must be no more than " + std::to_string(*r.max_int));
      } else if (auto* d = std::get_if<double>(&v)) {
        std::string shown = *describe_text(v);
        auto bound = [](double b) { return *describe_text(config_value{b}); };
        // Kafka's double bounds here are written as integers (0, 1).
        auto int_bound = [&](double b) {
          return b == std::floor(b) ? std::to_string(static_cast<int64_t>(b)) : bound(b);
        };
        if (r.min_double && !(*d >= *r.min_double))
          return invalid(key, shown, "Value must be at least " + int_bound(*r.min_double));
        if (r.max_double && !(*d <= *r.max_double))
          return invalid(key, shown, "Value must be no more than " + int_bound(*r.max_double));
      }
      return std::nullopt;
    case rule::kind::one_of: {
      const auto& s = std::get<std::string>(v);
      if (std::find(r.values.begin(), r.values.end(), s) != r.values.end()) return std::nullopt;
      return invalid(key, s, "String must be one of: " + join(r.values, ", "));
    }
    case rule::kind::list_one_of:
      for (const auto& item : std::get<std::vector<std::string>>(v)) {
        if (item.empty())
          return "Configuration '" + std::string(key.name) + "' values must not be empty.";
        if (std::find(r.values.begin(), r.values.end(), item) == r.values.end())
          return invalid(key, item, "String must be one of: " + join(r.values, ", "));
      }
      return std::nullopt;
  }
  return std::nullopt;
}

// Parses the text by type only; the error is Kafka's, naming the raw text.
std::variant<config_value, std::string> parse_typed(const topic_config_key& key, std::string_view text) {
  config_key as_broker_key{key.name, key.type, std::nullopt, rule::none(), key.doc};
  parse_result r = parse_value(as_broker_key, text);
  if (auto* err = std::get_if<std::string>(&r)) return *err;
  config_value v = std::get<config_value>(std::move(r));
  // Kafka 4.3 drops repeated list items ("compact,compact" is "compact").
  if (auto* list = std::get_if<std::vector<std::string>>(&v)) {
    std::vector<std::string> unique;
    for (auto& item : *list)
      if (std::find(unique.begin(), unique.end(), item) == unique.end()) unique.push_back(std::move(item));
    *list = std::move(unique);
  }
  return v;
}

}  // namespace

std::span<const topic_config_key> topic_config_keys() { return table(); }

const topic_config_key* find_topic_key(std::string_view name) {
  const auto& keys = table();
  auto it = std::lower_bound(keys.begin(), keys.end(), name,
                             [](const topic_config_key& k, std::string_view n) { return k.name < n; });
  return it != keys.end() && it->name == name ? &*it : nullptr;
}

std::optional<topic_config_error> validate_topic_config(std::string_view key, std::string_view value) {
  const topic_config_key* k = find_topic_key(key);
  if (!k) return topic_config_error{"Unknown topic config name: " + std::string(key)};
  auto parsed = parse_typed(*k, value);
  if (auto* err = std::get_if<std::string>(&parsed)) return topic_config_error{*err};
  if (auto why = check_rule(*k, std::get<config_value>(parsed))) return topic_config_error{*why};
  return std::nullopt;
}

config_value parse_topic_value(const topic_config_key& key, std::string_view value) {
  auto parsed = parse_typed(key, value);
  assert(std::holds_alternative<config_value>(parsed) && "topic config value was not validated");
  return std::get<config_value>(std::move(parsed));
}

std::optional<std::string> describe_text(const config_value& v) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  if (auto* d = std::get_if<double>(&v)) {
    // Java's Double.toString: shortest digits, and always a fraction part.
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *d);
    std::string s(buf, end);
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
  }
  return value_to_string(v);
}

}  // namespace hw::config
