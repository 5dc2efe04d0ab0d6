#pragma once
// How long a coordinator's partition loads took, behind Kafka's
// partition-load-time-max/avg metrics: the loads of the last ten minutes,
// at most 4096 of them, the newest always kept. Owned by a
// coordinator_runtime (coordinator_runtime.h); record() runs on the loaded
// partition's strand and recent() on the metrics thread, so it has its own
// mutex, a leaf (nothing else is locked or called while it is held).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace hw::broker {

class load_metrics {
 public:
  // What is kept: at most this many loads, none older than kept_ms (but
  // the newest).
  static constexpr size_t max_kept = 4096;
  static constexpr int64_t kept_ms = 600'000;

  // A load that ended at `at_ms` and took `took_ms`.
  void record(int64_t at_ms, int64_t took_ms);

  struct load_times {
    double max_ms = 0;
    double avg_ms = 0;
  };
  // The longest and mean load among those that ended in the last
  // `window_ms` (Kafka samples two 30 s windows); nullopt when none did.
  std::optional<load_times> recent(int64_t now_ms, int64_t window_ms = 60'000) const;

 private:
  struct load {
    int64_t at_ms;
    int64_t took_ms;
  };
  mutable std::mutex mutex_;
  std::deque<load> loads_;  // oldest first
};

}  // namespace hw::broker
