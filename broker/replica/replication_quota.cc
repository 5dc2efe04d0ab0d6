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
    : samples_(std::max(samples, 1)), window_ms_(std::max<int64_t>(window_ms, 1)) {}

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

bool replication_quota::exceeded(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  return bound_ && rate_locked(now_ms) > static_cast<double>(*bound_);
}

void replication_quota::record(int64_t bytes, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  roll_locked(now_ms);
  windows_.back().bytes += bytes;
}

double replication_quota::rate(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  return rate_locked(now_ms);
}

void replication_quota::roll_locked(int64_t now_ms) {
  if (windows_.empty() || now_ms >= windows_.back().start_ms + window_ms_) windows_.push_back({now_ms, 0});
  // Windows older than the whole measured span no longer count.
  const int64_t expired_before = now_ms - static_cast<int64_t>(samples_) * window_ms_;
  while (windows_.size() > static_cast<size_t>(samples_) ||
         (!windows_.empty() && windows_.front().start_ms <= expired_before))
    windows_.erase(windows_.begin());
  if (windows_.empty()) windows_.push_back({now_ms, 0});
}

double replication_quota::rate_locked(int64_t now_ms) const {
  // Kafka's SimpleRate (what its replication quotas use): the bytes of
  // the live windows over the time since the oldest began, at least one
  // window.
  const int64_t expired_before = now_ms - static_cast<int64_t>(samples_) * window_ms_;
  int64_t total = 0;
  int64_t oldest = now_ms;
  for (const sample& s : windows_) {
    if (s.start_ms <= expired_before) continue;
    total += s.bytes;
    oldest = std::min(oldest, s.start_ms);
  }
  const int64_t elapsed = std::max(now_ms - oldest, window_ms_);
  return static_cast<double>(total) * 1000.0 / static_cast<double>(elapsed);
}

}  // namespace hw::broker
