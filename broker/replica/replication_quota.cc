#include "broker/replica/replication_quota.h"

#include <algorithm>
#include <charconv>

namespace hw::broker {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int32_t> number(std::string_view s) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

throttled_partitions parse_throttled_replicas(std::string_view value, int32_t self) {
  throttled_partitions out;
  if (trim(value) == "*") {
    out.all = true;
    return out;
  }
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = trim(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) continue;
    auto partition = number(trim(item.substr(0, colon)));
    auto broker = number(trim(item.substr(colon + 1)));
    if (partition && broker && *broker == self) out.partitions.insert(*partition);
  }
  return out;
}

replication_quota::replication_quota(int samples, int64_t window_ms)
    : windows_{std::max(samples, 1), std::max<int64_t>(window_ms, 1)} {}

void replication_quota::set_bound(std::optional<int64_t> bytes_per_second) {
  std::lock_guard lock(mutex_);
  bound_ = bytes_per_second;
}

void replication_quota::set_throttled(std::map<std::string, throttled_partitions> by_topic) {
  std::lock_guard lock(mutex_);
  throttled_.clear();
  for (auto& [topic, parts] : by_topic)
    if (!parts.empty()) throttled_.emplace(topic, std::move(parts));
}

bool replication_quota::throttled(const storage::topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = throttled_.find(tp.topic);
  return it != throttled_.end() && it->second.contains(tp.partition);
}

// Kafka's replication quotas measure with SimpleRate: the bytes of the live
// windows over the time since the oldest began, at least one window.
bool replication_quota::exceeded(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  return bound_ && moved_.simple_rate(windows_, now_ms) > static_cast<double>(*bound_);
}

void replication_quota::record(int64_t bytes, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  moved_.record(windows_, static_cast<double>(bytes), now_ms);
}

double replication_quota::rate(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  return moved_.simple_rate(windows_, now_ms);
}

}  // namespace hw::broker
