#pragma once
// The log cleaner's driver (Kafka's LogCleaner thread and the choice made
// by LogCleanerManager.grabFilthiestCompactedLog), for log.cleaner.threads
// = 1: clean_dirtiest() plans every compacted log (cleaner_plan.h), picks
// the one with the highest dirty ratio among those that qualify (dirtier
// than min.cleanable.dirty.ratio, or forced by max.compaction.lag.ms),
// captures its active producers on the partition's writer, cleans it on the
// calling thread (cleaner.h), installs the cleaned segments on the writer
// (log::install_cleaned) and records the new cleaner checkpoint. An I/O
// error is returned for the broker to take the log's dir offline
// (log_manager::note_error), as Kafka's cleaner reports a storage exception.
//
// The replaced segments wait in the driver's own pending_deletions for
// file.delete.delay.ms before their files are removed (on later calls). A
// log whose cleaning fails on its data (a batch that cannot be read) is
// marked uncleanable and skipped from then on, as Kafka does; a log whose
// segments changed under the cleaner (truncation, retention) is simply
// cleaned again on a later call.
//
// Threads: the broker calls clean_dirtiest() from one background thread
// (no asio here); everything that touches a partition's writer goes through
// the host's run_on_writer. The clock is injected. Not thread-safe: one
// caller.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "storage/cleaner.h"
#include "storage/cleaner_plan.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"
#include "storage/retention.h"

namespace hw::storage {

// What the cleaner needs from the broker (the log manager provides the
// checkpoints; the broker the strands and the stable offsets).
class log_cleaner_host {
 public:
  struct candidate {
    topic_partition tp;
    // Readable from the cleaner thread until clean_dirtiest() returns: the
    // broker must not remove the partition while the cleaner runs.
    const storage::log* log = nullptr;
    // min(last stable offset, high watermark).
    offset last_stable_offset;
    // The log's current settings, as the broker knows them (the cleaner
    // never reads log::config(), which belongs to the partition's writer).
    log_config config;
  };

  virtual ~log_cleaner_host() = default;
  // The online logs whose cleanup.policy includes compact.
  virtual std::vector<candidate> compacted_logs() = 0;
  virtual std::map<topic_partition, offset> cleaner_checkpoints() = 0;
  virtual std::error_code update_cleaner_checkpoint(const topic_partition& tp, offset first_dirty) = 0;
  // Runs fn on the partition's writer (its strand), waits, returns its result.
  virtual std::error_code run_on_writer(const topic_partition& tp,
                                        const std::function<std::error_code(partition_log&)>& fn) = 0;
};

// One cleaning, for the broker's log line (Kafka's recordStats).
struct cleaning_report {
  topic_partition tp;
  cleanable_range range;
  offset end_offset;  // the new checkpoint
  size_t segments_replaced = 0;
  cleaning_stats stats;
  // The swap was abandoned because the log changed under the cleaner.
  bool abandoned = false;
};

class log_cleaner {
 public:
  using clock = std::function<int64_t()>;

  log_cleaner(file_system& fs, const cleaner_config& config, log_cleaner_host& host, clock now_ms)
      : fs_(fs), config_(config), host_(host), now_ms_(std::move(now_ms)) {}

  // Cleans the dirtiest cleanable log; *out is empty when none qualifies.
  // An error names what failed; a log whose data cannot be read is marked
  // uncleanable.
  std::error_code clean_dirtiest(std::optional<cleaning_report>* out);
  // Removes the files of replaced segments whose delay has passed.
  std::error_code delete_expired_segments();
  // Every log's plan, as clean_dirtiest() sees it (for metrics and tests).
  // Kafka's max-dirty-percent metric is the largest ratio among them.
  std::vector<std::pair<topic_partition, cleanable_range>> plans();

  const std::set<topic_partition>& uncleanable() const { return uncleanable_; }
  size_t pending_segment_deletions() const { return deletions_.size(); }

 private:
  std::error_code plan(const log_cleaner_host::candidate& c, const std::map<topic_partition, offset>& checkpoints,
                       int64_t now_ms, cleanable_range* out);
  std::error_code clean(const log_cleaner_host::candidate& c, const cleanable_range& range, int64_t now_ms,
                        cleaning_report* report);

  file_system& fs_;
  cleaner_config config_;
  log_cleaner_host& host_;
  clock now_ms_;
  std::set<topic_partition> uncleanable_;
  pending_deletions deletions_;
};

}  // namespace hw::storage
