#pragma once
// One side's replication throttle, as Kafka's ReplicationQuotaManager: a
// byte rate (leader.replication.throttled.rate on the leader's side,
// follower.replication.throttled.rate on the follower's), measured as
// Kafka's SimpleRate over replication.quota.window.num windows of
// replication.quota.window.size.seconds (bytes since the oldest live window
// began, over at least one window),
// and the partitions it applies to on this broker (the topic configs
// leader.replication.throttled.replicas / follower.replication.throttled.replicas:
// `*`, or partition:broker items naming this broker).
//
// A throttled partition's replica that is out of sync gets no data while
// the measured rate is above the bound (the leader answers it empty, the
// follower leaves it out of its next fetch); every byte moved for a
// throttled partition counts. Replicas in the ISR are never held back, so
// a throttle slows a reassignment's copy and never acks=all.
//
// Thread-safe (a leaf mutex): fetch handlers and fetchers on any thread
// check and record; the metadata publisher sets bound and partitions.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/quota/sampled_rate.h"
#include "storage/log_manager.h"

namespace hw::broker {

// The partitions a *.replication.throttled.replicas value throttles on one
// broker.
struct throttled_partitions {
  bool all = false;
  std::set<int32_t> partitions;
  bool empty() const { return !all && partitions.empty(); }
  bool contains(int32_t p) const { return all || partitions.count(p) != 0; }
  bool operator==(const throttled_partitions&) const = default;
};

// Parses `*` or "p:b,p:b,..." (validated when it was set) for broker `self`.
throttled_partitions parse_throttled_replicas(std::string_view value, int32_t self);

class replication_quota {
 public:
  explicit replication_quota(int samples = 11, int64_t window_ms = 1000);

  // Bytes per second; nullopt: no bound (Kafka's default, Long.MAX_VALUE).
  void set_bound(std::optional<int64_t> bytes_per_second);
  // Every topic's throttled partitions on this broker (topics not named
  // have none).
  void set_throttled(std::map<std::string, throttled_partitions> by_topic);

  bool throttled(const storage::topic_partition& tp) const;
  // Whether the rate measured until now_ms is above the bound.
  bool exceeded(int64_t now_ms) const;
  // bytes moved at now_ms for throttled partitions.
  void record(int64_t bytes, int64_t now_ms);
  // The measured rate in bytes per second (for tests and metrics).
  double rate(int64_t now_ms) const;

 private:
  const quota::window_config windows_;
  mutable std::mutex mutex_;
  std::optional<int64_t> bound_;
  std::map<std::string, throttled_partitions, std::less<>> throttled_;
  mutable quota::sampled_stat moved_;  // measuring purges expired windows
};

}  // namespace hw::broker
