#pragma once
// The measures Kafka's quotas are made of, as its metrics library computes
// them (org.apache.kafka.common.metrics: SampledStat, Rate, SimpleRate,
// Avg, TokenBucket), so that a quota throttles at the same moments and
// for the same times as Kafka's:
//
//  - samples: a ring of `samples` windows of `window_ms`; a value goes to
//    the current window, a new one starts once the current is window_ms
//    old, and a window older than samples × window_ms counts nothing (it is
//    reset to start at the time of the measure, as Kafka's purge does).
//  - rate (Kafka's Rate, client quotas and connection rates): the sum of
//    the live windows over the time since the oldest began, padded to
//    samples - 1 full windows while fewer have passed (so a first burst is
//    measured over the whole span, not over its own few milliseconds).
//  - simple rate (Kafka's SimpleRate, replication quotas): the same sum
//    over at least one window, no padding.
//  - average: the sum of the live windows over the number of values.
//  - token bucket (controller mutations, KIP-599): a bound of `quota`
//    permits a second and a burst of samples × window seconds of them;
//    records take permits and may take it below zero.
//
// Pure and not thread-safe: the owner serialises access.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hw::broker::quota {

struct window_config {
  int samples = 11;          // quota.window.num
  int64_t window_ms = 1000;  // quota.window.size.seconds × 1000
};

class sampled_stat {
 public:
  void record(const window_config& config, double value, int64_t now_ms);
  // The live windows' total and count of values (windows expired by now
  // are reset first).
  double total(const window_config& config, int64_t now_ms);
  int64_t count(const window_config& config, int64_t now_ms);
  // Kafka's Rate: total over window_size(), per second.
  double rate(const window_config& config, int64_t now_ms);
  // Kafka's SimpleRate.
  double simple_rate(const window_config& config, int64_t now_ms);
  // Kafka's Avg; NaN without values.
  double average(const window_config& config, int64_t now_ms);
  // The span Rate divides by: since the oldest window began, padded to
  // samples - 1 full windows, at least 1 ms.
  int64_t window_size(const window_config& config, int64_t now_ms);
  bool empty() const { return samples_.empty(); }

 private:
  struct sample {
    double value = 0;
    int64_t events = 0;
    int64_t start_ms = 0;
  };
  void purge(const window_config& config, int64_t now_ms);
  const sample& oldest(int64_t now_ms);

  std::vector<sample> samples_;
  size_t current_ = 0;
};

class token_bucket {
 public:
  // Permits left at now_ms for a bound of quota a second (negative: owed).
  double tokens(const window_config& config, double quota, int64_t now_ms);
  void record(const window_config& config, double quota, double permits, int64_t now_ms);

 private:
  void refill(const window_config& config, double quota, int64_t now_ms);
  bool started_ = false;
  double tokens_ = 0;
  int64_t last_ms_ = 0;
};

}  // namespace hw::broker::quota
