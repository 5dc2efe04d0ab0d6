#pragma once
// Time and size retention of a partition log, as Kafka's
// UnifiedLog.deleteOldSegments decides it, in two halves:
//
// - plan_retention(): a pure function of the segments, the offsets, the
//   clock and the config. Kafka's three passes in its order, each deleting
//   an oldest prefix and stopping at the first segment it keeps: the log
//   start offset breach (always), then retention.bytes and retention.ms
//   (cleanup.policy "delete" only). A segment is deletable only when the
//   high watermark has reached the next segment's base offset (the log end
//   for the active segment), so the log start never passes the HW; an empty
//   active segment is never deletable. A non-empty active segment is, once
//   the HW reaches the log end: the log rolls first (Kafka 4.x, deleteSegments).
// - apply_retention(): carries a plan out on a log (log start raised to the
//   first remaining segment, files renamed to `.deleted`) and queues the
//   segments in a pending_deletions, which removes their files once
//   file.delete.delay.ms has passed. Readers holding a deleted segment keep
//   reading it through its open descriptors until they let go.
//
// Runs on the partition strand (the log's single writer). The caller logs
// the returned reasons (one Kafka-like line per deleted segment) and writes
// the log-start-offset checkpoint.

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "storage/log.h"
#include "storage/log_config.h"
#include "storage/segment.h"
#include "storage/types.h"

namespace hw::storage {

enum class retention_cause {
  log_start_offset_breach,
  retention_bytes_breach,
  retention_ms_breach,
};

struct retention_input {
  // Oldest first; the last is the active segment.
  std::span<const segment_info> segments;
  offset log_start_offset;
  offset log_end_offset;
  offset high_watermark;
  int64_t now_ms = 0;
};

struct segment_deletion {
  offset base_offset;
  retention_cause cause = retention_cause::retention_ms_breach;
  // "Deleting segment LogSegment(baseOffset=0, size=1024, largestRecordTimestamp=5) due to log retention
  // time 604800000ms breach based on the largest record timestamp in the segment".
  std::string reason;
};

struct retention_plan {
  // The oldest segments to delete, in order (empty: nothing to do).
  std::vector<segment_deletion> deletions;
  // The base offset of the first segment that stays; the log end offset
  // when every segment goes (the active one is then rolled first).
  offset first_kept_base_offset;
  bool rolls_active_segment = false;
};

retention_plan plan_retention(const log_config& config, const retention_input& input);

// Segments renamed to `.deleted`, waiting for file.delete.delay.ms before
// their files are removed (Kafka's scheduled "delete-file" task). Owned by
// whoever runs retention (one per log manager or per log); single thread.
// Bounded: past max_entries the oldest entry is removed early (its readers
// keep their descriptors; only the wait is cut short).
class pending_deletions {
 public:
  explicit pending_deletions(size_t max_entries = 4096) : max_entries_(max_entries) {}
  pending_deletions(const pending_deletions&) = delete;
  pending_deletions& operator=(const pending_deletions&) = delete;

  // Queues a segment whose files were renamed; due at due_ms.
  std::error_code add(std::shared_ptr<segment> s, int64_t due_ms);
  // Removes the files of every segment due at or before now_ms. On an error
  // the failing segment stays queued (a later call retries it).
  std::error_code delete_expired(int64_t now_ms, size_t* removed = nullptr);
  // Removes everything now (shutdown, or the partition being deleted).
  std::error_code delete_all(size_t* removed = nullptr);

  size_t size() const { return queue_.size(); }
  bool empty() const { return queue_.empty(); }

 private:
  struct entry {
    std::shared_ptr<segment> seg;
    int64_t due_ms = 0;
  };
  std::error_code remove_front();

  size_t max_entries_;
  std::deque<entry> queue_;  // in due order: the delay is per log, the clock only grows
};

struct retention_result {
  size_t segments_deleted = 0;
  offset log_start_offset;
  // One line per deleted segment, for the caller to log.
  std::vector<std::string> reasons;
};

// Plans with the log's config and the given HW, detaches the doomed
// segments from the log (rolling first when all go) and queues them on
// pending, due at now_ms + file.delete.delay.ms.
std::error_code apply_retention(log& l, offset high_watermark, int64_t now_ms, pending_deletions& pending,
                                retention_result* out);

}  // namespace hw::storage
