#include "broker/quota/sampled_rate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hw::broker::quota {

void sampled_stat::record(const window_config& config, double value, int64_t now_ms) {
  if (samples_.empty()) samples_.push_back({0, 0, now_ms});
  if (now_ms - samples_[current_].start_ms >= config.window_ms) {
    current_ = (current_ + 1) % static_cast<size_t>(std::max(config.samples, 1));
    if (current_ >= samples_.size()) samples_.push_back({0, 0, now_ms});
    else samples_[current_] = {0, 0, now_ms};
  }
  sample& s = samples_[current_];
  s.value += value;
  s.events += 1;
}

void sampled_stat::purge(const window_config& config, int64_t now_ms) {
  const int64_t expire_age = static_cast<int64_t>(config.samples) * config.window_ms;
  for (sample& s : samples_)
    if (now_ms - s.start_ms >= expire_age) s = {0, 0, now_ms};
}

const sampled_stat::sample& sampled_stat::oldest(int64_t now_ms) {
  if (samples_.empty()) samples_.push_back({0, 0, now_ms});
  const sample* found = &samples_.front();
  for (const sample& s : samples_)
    if (s.start_ms < found->start_ms) found = &s;
  return *found;
}

double sampled_stat::total(const window_config& config, int64_t now_ms) {
  purge(config, now_ms);
  double sum = 0;
  for (const sample& s : samples_) sum += s.value;
  return sum;
}

int64_t sampled_stat::count(const window_config& config, int64_t now_ms) {
  purge(config, now_ms);
  int64_t n = 0;
  for (const sample& s : samples_) n += s.events;
  return n;
}

int64_t sampled_stat::window_size(const window_config& config, int64_t now_ms) {
  purge(config, now_ms);
  int64_t elapsed = now_ms - oldest(now_ms).start_ms;
  const int64_t full_windows = elapsed / config.window_ms;
  const int64_t wanted = config.samples - 1;
  if (full_windows < wanted) elapsed += (wanted - full_windows) * config.window_ms;
  return std::max<int64_t>(elapsed, 1);
}

double sampled_stat::rate(const window_config& config, int64_t now_ms) {
  const double sum = total(config, now_ms);
  return sum * 1000.0 / static_cast<double>(window_size(config, now_ms));
}

double sampled_stat::simple_rate(const window_config& config, int64_t now_ms) {
  const double sum = total(config, now_ms);
  const int64_t elapsed = std::max(now_ms - oldest(now_ms).start_ms, config.window_ms);
  return sum * 1000.0 / static_cast<double>(elapsed);
}

double sampled_stat::average(const window_config& config, int64_t now_ms) {
  const double sum = total(config, now_ms);
  const int64_t n = count(config, now_ms);
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(n);
}

void token_bucket::refill(const window_config& config, double quota, int64_t now_ms) {
  const double burst = static_cast<double>(config.samples) * static_cast<double>(config.window_ms) / 1000.0 * quota;
  // A bucket starts full, as Kafka's does (its first refill covers the
  // time since the epoch).
  if (!started_) {
    started_ = true;
    tokens_ = burst;
  } else {
    tokens_ = std::min(burst, tokens_ + quota * static_cast<double>(now_ms - last_ms_) / 1000.0);
  }
  last_ms_ = now_ms;
}

double token_bucket::tokens(const window_config& config, double quota, int64_t now_ms) {
  refill(config, quota, now_ms);
  return tokens_;
}

void token_bucket::record(const window_config& config, double quota, double permits, int64_t now_ms) {
  refill(config, quota, now_ms);
  const double burst = static_cast<double>(config.samples) * static_cast<double>(config.window_ms) / 1000.0 * quota;
  tokens_ = std::min(burst, tokens_ - permits);
}

}  // namespace hw::broker::quota
