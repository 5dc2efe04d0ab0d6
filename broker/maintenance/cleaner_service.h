#pragma once
// The log cleaner thread (Kafka's LogCleaner with log.cleaner.threads=1):
// loops storage's log_cleaner::clean_dirtiest() over the compacted logs,
// sleeping log.cleaner.backoff.ms when none needs cleaning, and writes
// Kafka's lines for each run to the broker log. An I/O error takes the
// log's dir offline (log_manager::note_error); unreadable data marks the
// log uncleanable (storage does that) and is logged.
//
// Ownership and threads: owned by the storage scheduler; start() and stop()
// from the broker's main thread; the work runs on the cleaner's own
// std::thread, which blocks on partition strands, so the io threads must run
// until stop() has returned. run_once() is for tests (not with start()).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "broker/maintenance/cleaner_host.h"
#include "storage/cleaner_driver.h"

namespace hw::broker {

class cleaner_service {
 public:
  using clock = std::function<int64_t()>;

  cleaner_service(replica_manager& replicas, storage::file_system& fs, const storage::cleaner_config& config,
                  clock now_ms);
  ~cleaner_service();
  cleaner_service(const cleaner_service&) = delete;
  cleaner_service& operator=(const cleaner_service&) = delete;

  void start();
  // Wakes the thread from its backoff, lets the current pass finish, joins.
  void stop();

  // One pass: cleans the dirtiest log if any qualifies; returns what was done.
  std::optional<storage::cleaning_report> run_once();
  const storage::log_cleaner& cleaner() const { return cleaner_; }
  // Around removing a partition's log (see cleaner_host::begin_removal:
  // blocks while the running pass may read it; not from an io thread).
  void begin_log_removal(const storage::topic_partition& tp) { host_.begin_removal(tp); }
  void end_log_removal(const storage::topic_partition& tp) { host_.end_removal(tp); }

 private:
  void loop();
  void log_report(const storage::cleaning_report& r, int64_t took_ms) const;

  replica_manager& replicas_;
  cleaner_host host_;
  storage::log_cleaner cleaner_;
  int64_t backoff_ms_;
  std::thread thread_;
  std::mutex mutex_;  // leaf: the stop flag and the backoff wait
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace hw::broker
