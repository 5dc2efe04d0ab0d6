#pragma once
// The broker's background storage work (Kafka's LogManager and
// ReplicaManager scheduled tasks, and the log cleaner), each on Kafka's
// setting: time/count flushes, the recovery-point and log-start
// checkpoints, the replication-offset-checkpoint, retention, removal of
// deleted segments' and partitions' files, producer-id expiry, compaction.
//
// Ownership and threads: created by broker_node after the replica manager
// and stopped before the logs close. Its tasks run one at a time from one
// coroutine on the scheduler's strand: partition work hops to the
// partition's strand (run_on), slow file work to a small blocking pool, so
// no io thread waits on a disk. The cleaner runs on its own thread.
// start() and stop() are called from the main thread, with the io threads
// running; each task's run_*() may also be awaited directly (tests).
// Task logic reads the injected clock; only the pacing uses real time.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "broker/asio.h"
#include "broker/maintenance/cleaner_service.h"
#include "broker/maintenance/maintenance_options.h"
#include "broker/maintenance/retention_task.h"
#include "broker/replica/replica_manager.h"
#include "storage/io/file_system.h"

namespace hw::broker {

class storage_scheduler {
 public:
  using clock = std::function<int64_t()>;

  storage_scheduler(asio::any_io_executor executor, replica_manager& replicas, storage::file_system& fs,
                    std::vector<std::filesystem::path> log_dirs, maintenance_options options, clock now_ms);
  ~storage_scheduler();
  storage_scheduler(const storage_scheduler&) = delete;
  storage_scheduler& operator=(const storage_scheduler&) = delete;

  void start();
  // Blocks until the running task has finished and the cleaner has stopped;
  // then removes what is waiting in `.deleted` files.
  void stop();

  // --- one pass of each task ------------------------------------------------
  asio::awaitable<void> run_flush();
  asio::awaitable<void> run_offset_checkpoints();
  asio::awaitable<void> run_high_watermark_checkpoint();
  asio::awaitable<size_t> run_retention();
  asio::awaitable<void> run_segment_deletions();
  asio::awaitable<void> run_deleted_dirs_cleanup();
  asio::awaitable<size_t> run_producer_expiry();

  retention_task& retention() { return retention_; }
  cleaner_service* cleaner() { return cleaner_.get(); }

 private:
  struct task {
    const char* name;
    int64_t interval_ms;
    asio::awaitable<void> (storage_scheduler::*run)();
    std::chrono::steady_clock::time_point due;
  };
  asio::awaitable<void> loop();
  asio::awaitable<void> retention_tick();
  asio::awaitable<void> producer_expiry_tick();
  template <typename F>
  asio::awaitable<std::invoke_result_t<F&>> blocking(F f);

  asio::strand<asio::any_io_executor> strand_;
  replica_manager& replicas_;
  storage::file_system& fs_;
  std::vector<std::filesystem::path> log_dirs_;
  maintenance_options options_;
  clock now_ms_;
  asio::thread_pool pool_;
  asio::steady_timer timer_;
  retention_task retention_;
  std::unique_ptr<cleaner_service> cleaner_;
  std::vector<task> tasks_;  // strand only
  bool stopping_ = false;    // strand only
  std::optional<std::future<void>> loop_done_;
};

}  // namespace hw::broker
