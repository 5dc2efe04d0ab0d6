#include "broker/maintenance/retention_task.h"

#include <spdlog/spdlog.h>

#include "broker/maintenance/log_lines.h"
#include "broker/run_on.h"

namespace hw::broker {

asio::awaitable<size_t> retention_task::run(int64_t now_ms) {
  size_t deleted = 0;
  for (const auto& p : replicas_.all()) {
    if (replicas_.logs().is_offline(p->tp())) continue;
    deleted += co_await run_on(p->strand(), [this, &p, now_ms]() -> size_t {
      // Deleted since the list was taken: its log may be gone (the replica
      // manager drops it from the map before draining this strand).
      if (replicas_.get(p->tp()) != p) return 0;
      storage::partition_log& log = p->log();
      if (log.offline()) return 0;
      storage::retention_result result;
      const auto prefix = unified_log_prefix(p->tp(), log.dir().parent_path());
      std::error_code ec = storage::apply_retention(log.mutable_log(), p->high_watermark(), now_ms, pending_, &result);
      if (!ec && result.segments_deleted > 0) {
        // Kafka logs the new start first, then one line per segment.
        spdlog::info("{}Incremented log start offset to {} due to segment deletion", prefix,
                     result.log_start_offset.value);
        for (const auto& reason : result.reasons) spdlog::info("{}{}", prefix, reason);
        ec = log.on_log_start_offset_moved();
      }
      if (ec) {
        spdlog::error("{}Retention failed: {}", prefix, ec.message());
        replicas_.logs().note_error(p->tp(), ec);
      }
      return result.segments_deleted;
    });
  }
  co_return deleted;
}

std::error_code retention_task::delete_expired(int64_t now_ms) {
  size_t removed = 0;
  auto ec = pending_.delete_expired(now_ms, &removed);
  if (ec) spdlog::error("Cannot delete the files of deleted segments: {}", ec.message());
  return ec;
}

std::error_code retention_task::delete_all() { return pending_.delete_all(); }

}  // namespace hw::broker
