// load_metrics: the window of recent partition loads (see load_metrics.h).
// Any thread; its own mutex.
#include "broker/coordinator_log/load_metrics.h"

#include <algorithm>

namespace hw::broker {

void load_metrics::record(int64_t at_ms, int64_t took_ms) {
  std::lock_guard lock(mutex_);
  loads_.push_back({at_ms, took_ms});
  while (loads_.size() > 1 && (loads_.size() > max_kept || at_ms - loads_.front().at_ms > kept_ms)) {
    loads_.pop_front();
  }
}

auto load_metrics::recent(int64_t now_ms, int64_t window_ms) const -> std::optional<load_times> {
  std::lock_guard lock(mutex_);
  load_times t;
  int64_t count = 0, sum = 0;
  for (const auto& l : loads_) {
    if (now_ms - l.at_ms > window_ms) continue;
    t.max_ms = std::max<double>(t.max_ms, static_cast<double>(l.took_ms));
    sum += l.took_ms;
    ++count;
  }
  if (count == 0) return std::nullopt;
  t.avg_ms = static_cast<double>(sum) / static_cast<double>(count);
  return t;
}

}  // namespace hw::broker
