// The table of group-level configs. Names, types, defaults, rules, broker
// synonyms and the bounds each is checked against follow Kafka 4.3.1
// (GroupConfig, GroupCoordinatorConfig, ShareGroupConfig); the summaries are
// ours.

#include "config/group_configs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "config/value_parse.h"

namespace hw::config {
namespace {

using T = value_type;

constexpr std::string_view auto_offset_reset = "share.auto.offset.reset";

const std::vector<group_config_key>& table() {
  static const std::vector<group_config_key> keys = {
      {"consumer.session.timeout.ms", T::int32, "45000", rule::at_least(1), "group.consumer.session.timeout.ms",
       "How long a member of this consumer group may go without a heartbeat before it is removed."},
      {"consumer.heartbeat.interval.ms", T::int32, "5000", rule::at_least(1), "group.consumer.heartbeat.interval.ms",
       "How often members of this consumer group are told to heartbeat."},
      {"consumer.assignment.interval.ms", T::int32, "1000", rule::at_least(0),
       "group.consumer.assignment.interval.ms", "Shortest time between two assignment updates of this consumer group."},
      {"share.session.timeout.ms", T::int32, "45000", rule::at_least(1), "group.share.session.timeout.ms",
       "How long a member of this share group may go without a heartbeat before it is removed."},
      {"share.heartbeat.interval.ms", T::int32, "5000", rule::at_least(1), "group.share.heartbeat.interval.ms",
       "How often members of this share group are told to heartbeat."},
      {"share.record.lock.duration.ms", T::int32, "30000", rule::at_least(1000), "group.share.record.lock.duration.ms",
       "How long a record delivered to this share group stays locked to its consumer."},
      {"share.delivery.count.limit", T::int32, "5", rule::at_least(2), "group.share.delivery.count.limit",
       "How many times a record is delivered to this share group before it is given up on."},
      {"share.partition.max.record.locks", T::int32, "2000", rule::at_least(100),
       "group.share.partition.max.record.locks", "Most records of one share-partition locked at a time."},
      {auto_offset_reset, T::string, "latest", rule::none(), "",
       "Where a share-partition starts: earliest, latest, or by_duration:<ISO-8601 duration> before now."},
      {"share.isolation.level", T::string, "read_uncommitted", rule::one_of({"read_committed", "read_uncommitted"}), "",
       "Whether this share group is given only committed transactional records, or all of them."},
      {"share.renew.acknowledge.enable", T::boolean, "true", rule::none(), "",
       "Whether members of this share group may renew their record locks."},
      {"share.assignment.interval.ms", T::int32, "1000", rule::at_least(0), "group.share.assignment.interval.ms",
       "Shortest time between two assignment updates of this share group."},
      {"streams.session.timeout.ms", T::int32, "45000", rule::at_least(1), "group.streams.session.timeout.ms",
       "How long a member of this streams group may go without a heartbeat before it is removed."},
      {"streams.heartbeat.interval.ms", T::int32, "5000", rule::at_least(1), "group.streams.heartbeat.interval.ms",
       "How often members of this streams group are told to heartbeat."},
      {"streams.num.standby.replicas", T::int32, "0", rule::at_least(0), "group.streams.num.standby.replicas",
       "Standby replicas of each task of this streams group."},
      {"streams.initial.rebalance.delay.ms", T::int32, "3000", rule::at_least(0),
       "group.streams.initial.rebalance.delay.ms",
       "How long a new streams group waits for more members before its first assignment."},
      {"streams.assignment.interval.ms", T::int32, "1000", rule::at_least(0), "group.streams.assignment.interval.ms",
       "Shortest time between two assignment updates of this streams group."},
  };
  return keys;
}

constexpr std::array<std::string_view, 17> describe_order = {
    "consumer.session.timeout.ms",     "consumer.assignment.interval.ms", "share.auto.offset.reset",
    "share.renew.acknowledge.enable",  "streams.initial.rebalance.delay.ms", "share.session.timeout.ms",
    "streams.assignment.interval.ms",  "share.heartbeat.interval.ms",     "streams.heartbeat.interval.ms",
    "share.delivery.count.limit",      "consumer.heartbeat.interval.ms",  "share.record.lock.duration.ms",
    "share.assignment.interval.ms",    "share.isolation.level",           "streams.session.timeout.ms",
    "share.partition.max.record.locks", "streams.num.standby.replicas",
};

// One check of GroupConfig.validateValues: the group key against a broker
// bound, or (bound empty) a session timeout against its heartbeat interval.
struct bound_check {
  std::string_view key;
  std::string_view bound;  // broker key; empty: `key` must exceed `other`
  bool is_min = true;
  std::string_view other = {};
};

// In Kafka's order: the first broken one is the one reported.
constexpr std::array<bound_check, 28> bound_checks = {{
    {"consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", true},
    {"consumer.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms", false},
    {"consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", true},
    {"consumer.session.timeout.ms", "group.consumer.max.session.timeout.ms", false},
    {"consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms", true},
    {"consumer.assignment.interval.ms", "group.consumer.max.assignment.interval.ms", false},
    {"share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms", true},
    {"share.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms", false},
    {"share.session.timeout.ms", "group.share.min.session.timeout.ms", true},
    {"share.session.timeout.ms", "group.share.max.session.timeout.ms", false},
    {"share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms", true},
    {"share.record.lock.duration.ms", "group.share.max.record.lock.duration.ms", false},
    {"share.delivery.count.limit", "group.share.min.delivery.count.limit", true},
    {"share.delivery.count.limit", "group.share.max.delivery.count.limit", false},
    {"share.partition.max.record.locks", "group.share.min.partition.max.record.locks", true},
    {"share.partition.max.record.locks", "group.share.max.partition.max.record.locks", false},
    {"share.assignment.interval.ms", "group.share.min.assignment.interval.ms", true},
    {"share.assignment.interval.ms", "group.share.max.assignment.interval.ms", false},
    {"streams.heartbeat.interval.ms", "group.streams.min.heartbeat.interval.ms", true},
    {"streams.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms", false},
    {"streams.session.timeout.ms", "group.streams.min.session.timeout.ms", true},
    {"streams.session.timeout.ms", "group.streams.max.session.timeout.ms", false},
    {"streams.num.standby.replicas", "group.streams.max.standby.replicas", false},
    {"streams.assignment.interval.ms", "group.streams.min.assignment.interval.ms", true},
    {"streams.assignment.interval.ms", "group.streams.max.assignment.interval.ms", false},
    {"consumer.session.timeout.ms", "", true, "consumer.heartbeat.interval.ms"},
    {"share.session.timeout.ms", "", true, "share.heartbeat.interval.ms"},
    {"streams.session.timeout.ms", "", true, "streams.heartbeat.interval.ms"},
}};

// An optionally signed integer followed by `unit` at the front of s; the
// number is consumed. nullopt when s does not start that way.
std::optional<__int128> take_part(std::string_view& s, char unit, std::string_view* fraction = nullptr) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  size_t end = i;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  int64_t magnitude = 0;
  auto [stop, ec] = std::from_chars(s.data() + i, s.data() + end, magnitude);
  if (end == i || ec != std::errc() || stop != s.data() + end) return std::nullopt;
  size_t after = end;
  std::string_view frac;
  if (fraction && after < s.size() && (s[after] == '.' || s[after] == ',')) {
    size_t f = after + 1;
    while (f < s.size() && s[f] >= '0' && s[f] <= '9') ++f;
    frac = s.substr(after + 1, f - after - 1);
    if (frac.size() > 9) return std::nullopt;
    after = f;
  }
  if (after >= s.size() || std::toupper(static_cast<unsigned char>(s[after])) != unit) return std::nullopt;
  __int128 v = s[0] == '-' ? -static_cast<__int128>(magnitude) : magnitude;
  if (fraction) *fraction = frac;
  s.remove_prefix(after + 1);
  return v;
}

// Java's Duration.parse (PnDTnHnMn.nS, case-insensitive, signed parts), in
// nanoseconds; nullopt when it does not parse.
std::optional<__int128> parse_duration_nanos(std::string_view s) {
  __int128 sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  if (s.empty() || std::toupper(static_cast<unsigned char>(s[0])) != 'P') return std::nullopt;
  s.remove_prefix(1);
  constexpr __int128 second = 1'000'000'000;
  __int128 total = 0;
  bool any = false;
  if (auto d = take_part(s, 'D')) total += *d * 86400 * second, any = true;
  if (!s.empty() && std::toupper(static_cast<unsigned char>(s[0])) == 'T') {
    s.remove_prefix(1);
    bool any_time = false;
    if (auto h = take_part(s, 'H')) total += *h * 3600 * second, any_time = true;
    if (auto m = take_part(s, 'M')) total += *m * 60 * second, any_time = true;
    std::string_view frac;
    std::string_view before = s;
    if (auto sec = take_part(s, 'S', &frac)) {
      int64_t nanos = 0;
      for (size_t i = 0; i < 9; ++i) nanos = nanos * 10 + (i < frac.size() ? frac[i] - '0' : 0);
      total += *sec * second + (before[0] == '-' ? -nanos : nanos);
      any_time = true;
    }
    if (!any_time) return std::nullopt;
    any = true;
  }
  if (!s.empty() || !any) return std::nullopt;
  return sign * total;
}

// ShareGroupAutoOffsetResetStrategy's validator: earliest, latest, or a
// duration back from now that is not negative.
bool valid_auto_offset_reset(std::string_view v) {
  if (v == "earliest" || v == "latest") return true;
  constexpr std::string_view prefix = "by_duration:";
  if (v.substr(0, prefix.size()) != prefix) return false;
  auto nanos = parse_duration_nanos(v.substr(prefix.size()));
  return nanos && *nanos >= 0;
}

config_key as_config_key(const group_config_key& k, rule check) {
  return config_key{k.name, k.type, std::nullopt, std::move(check), k.doc};
}

// Type first, then the rule on the parsed value, so the message shows the
// value as Kafka parsed it (" +0" is reported as 0).
std::variant<config_value, std::string> parse_checked(const group_config_key& key, std::string_view text) {
  parse_result typed = parse_value(as_config_key(key, rule::none()), text);
  if (auto* err = std::get_if<std::string>(&typed)) return *err;
  config_value v = std::get<config_value>(std::move(typed));
  std::string shown = value_to_string(v);
  if (key.name == auto_offset_reset) {
    if (valid_auto_offset_reset(shown)) return v;
    return invalid_value_message(as_config_key(key, rule::none()), shown,
                                 "Invalid value `" + shown + "` for configuration " + std::string(key.name) +
                                     ". The value must be either 'earliest', 'latest' or of the format "
                                     "'by_duration:<PnDTnHnMn.nS>'.");
  }
  parse_result checked = parse_value(as_config_key(key, key.check), shown);
  if (auto* err = std::get_if<std::string>(&checked)) return *err;
  return v;
}

std::optional<int64_t> broker_int(const broker_config_layers& broker, std::string_view key) {
  auto text = broker.current_text(key);
  if (!text) return std::nullopt;
  const config_key* k = find_broker_key(key);
  if (!k) return std::nullopt;
  parse_result r = parse_value(*k, *text);
  if (auto* v = std::get_if<config_value>(&r))
    if (auto* i = std::get_if<int64_t>(v)) return *i;
  return std::nullopt;
}

}  // namespace

std::span<const group_config_key> group_config_keys() { return table(); }

const group_config_key* find_group_key(std::string_view name) {
  const auto& keys = table();
  auto it = std::find_if(keys.begin(), keys.end(), [&](const group_config_key& k) { return k.name == name; });
  return it == keys.end() ? nullptr : &*it;
}

std::span<const std::string_view> group_config_describe_order() { return describe_order; }

std::optional<config_value> parse_group_value(const group_config_key& key, std::string_view text) {
  auto parsed = parse_checked(key, text);
  if (auto* v = std::get_if<config_value>(&parsed)) return std::move(*v);
  return std::nullopt;
}

std::optional<std::string> group_config_text(const group_config_key& key, const config_map& group,
                                            const broker_config_layers& broker) {
  if (auto it = group.find(key.name); it != group.end())
    if (auto v = parse_group_value(key, it->second)) return value_to_string(*v);
  if (!key.broker_synonym.empty())
    if (auto text = broker.current_text(key.broker_synonym))
      if (auto v = parse_group_value(key, *text)) return value_to_string(*v);
  return std::string(key.default_value);
}

std::optional<topic_config_error> validate_group_configs(const config_map& group, const broker_config_layers& broker) {
  for (const auto& [name, value] : group)
    if (!find_group_key(name)) return topic_config_error{"Unknown group config name: " + name};
  std::map<std::string_view, int64_t> ints;
  for (const group_config_key& key : table()) {
    std::optional<std::string> text;
    if (auto it = group.find(key.name); it != group.end()) text = it->second;
    else text = group_config_text(key, {}, broker);
    auto parsed = parse_checked(key, *text);
    if (auto* err = std::get_if<std::string>(&parsed)) return topic_config_error{*err};
    if (auto* i = std::get_if<int64_t>(&std::get<config_value>(parsed))) ints[key.name] = *i;
  }
  for (const bound_check& c : bound_checks) {
    int64_t value = ints.at(c.key);
    if (c.bound.empty()) {
      if (value <= ints.at(c.other))
        return topic_config_error{std::string(c.key) + " must be greater than " + std::string(c.other)};
      continue;
    }
    auto bound = broker_int(broker, c.bound);
    if (!bound) continue;
    if (c.is_min && value < *bound)
      return topic_config_error{std::string(c.key) + " must be greater than or equal to " + std::string(c.bound)};
    if (!c.is_min && value > *bound)
      return topic_config_error{std::string(c.key) + " must be less than or equal to " + std::string(c.bound)};
  }
  return std::nullopt;
}

}  // namespace hw::config
