#include "broker/maintenance/cleaner_service.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "storage/segment.h"

namespace hw::broker {

cleaner_service::cleaner_service(replica_manager& replicas, storage::file_system& fs,
                                 const storage::cleaner_config& config, clock now_ms)
    : replicas_(replicas),
      host_(replicas),
      cleaner_(fs, config, host_, std::move(now_ms)),
      backoff_ms_(config.backoff_ms) {}

cleaner_service::~cleaner_service() { stop(); }

void cleaner_service::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  spdlog::info("Starting the log cleaner");
  thread_ = std::thread([this] { loop(); });
}

void cleaner_service::stop() {
  if (!thread_.joinable()) return;
  spdlog::info("Shutting down the log cleaner.");
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void cleaner_service::loop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    const bool cleaned = run_once().has_value();
    std::unique_lock lock(mutex_);
    // Straight on while logs need cleaning; otherwise back off (Kafka's
    // log.cleaner.backoff.ms), waking early only to stop.
    if (!cleaned) wake_.wait_for(lock, std::chrono::milliseconds(backoff_ms_), [this] { return stopping_; });
  }
}

std::optional<storage::cleaning_report> cleaner_service::run_once() {
  std::optional<storage::cleaning_report> report;
  const auto started = std::chrono::steady_clock::now();
  std::error_code ec = cleaner_.clean_dirtiest(&report);
  host_.release();
  const int64_t took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  if (ec) {
    const std::string name = report ? storage::partition_dir_name(report->tp) : std::string("(none)");
    if (ec == storage::log_errc::invalid_records) {
      spdlog::warn("Cleaner 0: Unexpected exception thrown when cleaning log {}. Marking its partition ({}) as "
                   "uncleanable: {}", name, name, ec.message());
    } else {
      spdlog::error("Cleaner 0: Error cleaning log {}: {}", name, ec.message());
      if (report) replicas_.logs().note_error(report->tp, ec);
    }
    return std::nullopt;
  }
  if (report) log_report(*report, took_ms);
  if (auto del = cleaner_.delete_expired_segments())
    spdlog::error("Cleaner 0: Cannot delete replaced segments: {}", del.message());
  return report;
}

void cleaner_service::log_report(const storage::cleaning_report& r, int64_t took_ms) const {
  const std::string name = storage::partition_dir_name(r.tp);
  if (r.abandoned) {
    spdlog::info("Cleaner 0: Log {} changed while it was being cleaned; it will be cleaned again", name);
    return;
  }
  const double mb_read = static_cast<double>(r.stats.filter.bytes_read) / (1024.0 * 1024.0);
  const double mb_kept = static_cast<double>(r.stats.filter.bytes_retained) / (1024.0 * 1024.0);
  spdlog::info("Log cleaner thread 0 cleaned log {} (dirty section = [{}, {}]): {:.1f} MB of log processed in "
               "{:.1f} seconds, {} records read, {} retained ({:.1f} MB), {} segments replaced by {}, offset map "
               "{} entries ({:.1f}% full)",
               name, r.range.first_dirty_offset.value, r.end_offset.value, mb_read, static_cast<double>(took_ms) / 1000,
               r.stats.filter.records_read, r.stats.filter.records_retained, mb_kept, r.segments_replaced,
               r.stats.segments_written, r.stats.map_entries, 100.0 * r.stats.map_utilization);
}

}  // namespace hw::broker
