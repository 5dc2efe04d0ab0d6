#include "broker/maintenance/storage_scheduler.h"

#include <algorithm>
#include <cassert>
#include <chrono>

#include <spdlog/spdlog.h>

#include "broker/maintenance/high_watermark_checkpoint.h"
#include "broker/run_on.h"

namespace hw::broker {
namespace {

using steady = std::chrono::steady_clock;

// Beyond ten years an interval means never (and keeps time arithmetic in range).
constexpr int64_t kNeverMs = 10LL * 365 * 24 * 3600 * 1000;
// No task runs more often than this, whatever its setting says.
constexpr int64_t kMinIntervalMs = 10;

steady::time_point after(steady::time_point from, int64_t interval_ms) {
  if (interval_ms >= kNeverMs) return steady::time_point::max();
  return from + std::chrono::milliseconds(std::max(interval_ms, kMinIntervalMs));
}

}  // namespace

storage_scheduler::storage_scheduler(asio::any_io_executor executor, replica_manager& replicas,
                                     storage::file_system& fs, std::vector<std::filesystem::path> log_dirs,
                                     maintenance_options options, clock now_ms)
    : strand_(asio::make_strand(executor)),
      replicas_(replicas),
      fs_(fs),
      log_dirs_(std::move(log_dirs)),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)),
      pool_(static_cast<size_t>(std::max(options_.blocking_threads, 1))),
      timer_(strand_),
      retention_(replicas) {
  if (options_.cleaner_enabled) cleaner_ = std::make_unique<cleaner_service>(replicas_, fs_, options_.cleaner, now_ms_);
  tasks_ = {
      {"kafka-log-flusher", options_.flush_check_interval_ms, &storage_scheduler::run_flush, {}},
      {"kafka-recovery-point-checkpoint", options_.offset_checkpoint_interval_ms,
       &storage_scheduler::run_offset_checkpoints, {}},
      {"highwatermark-checkpoint", options_.high_watermark_checkpoint_interval_ms,
       &storage_scheduler::run_high_watermark_checkpoint, {}},
      {"kafka-log-retention", options_.retention_check_interval_ms, &storage_scheduler::retention_tick, {}},
      {"delete-file", options_.segment_deletion_check_interval_ms, &storage_scheduler::run_segment_deletions, {}},
      {"kafka-delete-logs", options_.deleted_dir_delay_ms, &storage_scheduler::run_deleted_dirs_cleanup, {}},
      {"PeriodicProducerExpirationCheck", options_.producer_expiration_check_interval_ms,
       &storage_scheduler::producer_expiry_tick, {}},
  };
}

storage_scheduler::~storage_scheduler() {
  // stop() needs the io threads; a node that started the scheduler stops it.
  assert(!loop_done_ && "storage_scheduler destroyed while running");
  pool_.join();
}

void storage_scheduler::start() {
  assert(!loop_done_);
  // Kafka flushes a log below each new segment soon after the roll, on its
  // scheduler: the recovery point keeps up without any log.flush.* setting.
  replicas_.logs().set_roll_listener([this](const storage::topic_partition& tp, storage::offset new_base) {
    asio::post(pool_, [this, tp, new_base] {
      if (auto err = replicas_.logs().flush_to(tp, new_base, now_ms_()))
        spdlog::error("Error flushing {} after a roll: {}", storage::partition_dir_name(tp), err.message);
    });
  });
  loop_done_ = asio::co_spawn(strand_, loop(), asio::use_future);
  if (cleaner_) cleaner_->start();
}

void storage_scheduler::stop() {
  replicas_.logs().set_roll_listener({});
  if (cleaner_) cleaner_->stop();
  if (!loop_done_) return;
  asio::post(strand_, [this] {
    stopping_ = true;
    timer_.cancel();
  });
  loop_done_->get();
  loop_done_.reset();
  pool_.join();
  // Segments waiting out file.delete.delay.ms would be removed at the next
  // start-up anyway; removing them now lets the logs close without them.
  if (auto ec = retention_.delete_all()) spdlog::error("Cannot delete the files of deleted segments: {}", ec.message());
}

asio::awaitable<void> storage_scheduler::loop() {
  for (auto& t : tasks_) t.due = after(steady::now(), t.interval_ms);
  while (!stopping_) {
    for (auto& t : tasks_) {
      if (stopping_) break;
      if (t.due > steady::now()) continue;
      try {
        co_await (this->*t.run)();
      } catch (const std::exception& e) {
        spdlog::error("Uncaught error in scheduled task '{}': {}", t.name, e.what());
      }
      t.due = after(steady::now(), t.interval_ms);
    }
    if (stopping_) break;
    auto next = std::min_element(tasks_.begin(), tasks_.end(), [](const task& a, const task& b) { return a.due < b.due; });
    timer_.expires_at(next->due);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> storage_scheduler::run_flush() {
  const int64_t now = now_ms_();
  auto err = co_await run_on(pool_.get_executor(), [this, now] { return replicas_.logs().flush_dirty(now); });
  if (err) spdlog::error("Error flushing logs: {}", err.message);
}

asio::awaitable<void> storage_scheduler::run_offset_checkpoints() {
  auto err = co_await run_on(pool_.get_executor(), [this] { return replicas_.logs().checkpoint_all(); });
  if (err) spdlog::error("Error writing the recovery point and log start offset checkpoints: {}", err.message);
}

asio::awaitable<void> storage_scheduler::run_high_watermark_checkpoint() {
  co_await run_on(pool_.get_executor(), [this] { (void)write_high_watermark_checkpoints(fs_, replicas_, log_dirs_); });
}

asio::awaitable<size_t> storage_scheduler::run_retention() {
  const int64_t now = now_ms_();
  size_t deleted = co_await retention_.run(now);
  co_await run_segment_deletions();
  co_return deleted;
}

asio::awaitable<void> storage_scheduler::retention_tick() { co_await run_retention(); }

asio::awaitable<void> storage_scheduler::run_segment_deletions() {
  if (retention_.pending_files() == 0) co_return;
  const int64_t now = now_ms_();
  co_await run_on(pool_.get_executor(), [this, now] { (void)retention_.delete_expired(now); });
}

asio::awaitable<void> storage_scheduler::run_deleted_dirs_cleanup() {
  co_await run_on(pool_.get_executor(), [this] { replicas_.logs().cleanup_deleted(); });
}

asio::awaitable<size_t> storage_scheduler::run_producer_expiry() {
  const int64_t now = now_ms_();
  size_t expired = 0;
  for (const auto& p : replicas_.all()) {
    if (replicas_.logs().is_offline(p->tp())) continue;
    expired += co_await run_on(p->strand(), [this, &p, now]() -> size_t {
      if (replicas_.get(p->tp()) != p || p->log().offline()) return 0;  // deleted meanwhile, or failed
      return p->expire_producers(now);
    });
  }
  co_return expired;
}

asio::awaitable<void> storage_scheduler::producer_expiry_tick() { co_await run_producer_expiry(); }

}  // namespace hw::broker
