#pragma once
// Which part of a compacted log the cleaner may clean, and how dirty it is:
// Kafka's LogCleanerManager.cleanableOffsets, calculateCleanableBytes,
// maxCompactionDelay and LogToClean, as a pure function of the segments,
// the offsets, the cleaner checkpoint and the clock.
//
// - The first dirty offset is the cleaner checkpoint, or the log start
//   offset when there is none or it lies outside [log start, log end] (then
//   the checkpoint must be rewritten: force_checkpoint_update).
// - The cleaner never reaches past the first of: the last stable offset
//   (the caller passes min(LSO, high watermark)), the active segment's base
//   offset, and the first dirty non-active segment whose largest timestamp
//   is within min.compaction.lag.ms of now. It is then rounded down to the
//   base offset of the segment holding it, so cleaning stops at a segment
//   boundary.
// - Clean bytes: the segments below the first dirty offset; cleanable
//   bytes: the segments from the first dirty offset up to that boundary;
//   the dirty ratio is cleanable / (clean + cleanable).
// - max.compaction.lag.ms: when the first batch of a dirty non-active
//   segment is older than the lag, the log must be compacted now whatever
//   its ratio (compaction_delay_ms > 0).
//
// Pure: no I/O, no clock of its own. Called by the log cleaner's driver.

#include <cstdint>
#include <optional>
#include <span>

#include "storage/log_config.h"
#include "storage/types.h"

namespace hw::storage {

// A segment as the cleaner's planning sees it.
struct cleaner_segment_info {
  offset base_offset;
  uint64_t size_bytes = 0;
  // The segment's largest batch timestamp (no_timestamp when empty).
  int64_t largest_timestamp = -1;
  // Its first batch's max timestamp; nothing for an empty segment.
  std::optional<int64_t> first_batch_timestamp;
};

struct cleanable_input {
  // Oldest first; the last is the active segment.
  std::span<const cleaner_segment_info> segments;
  offset log_start_offset;
  offset log_end_offset;
  // min(last stable offset, high watermark): nothing at or past it is cleaned.
  offset last_stable_offset;
  // From cleaner-offset-checkpoint.
  std::optional<offset> checkpoint;
  int64_t now_ms = 0;
};

struct cleanable_range {
  offset first_dirty_offset;
  // Kafka's firstUncleanableDirtyOffset (not below the first dirty offset).
  offset first_uncleanable_dirty_offset;
  // The base offset of the segment holding it: cleaning ends here.
  offset first_uncleanable_offset;
  // The checkpoint was missing-but-out-of-range or invalid: rewrite it.
  bool force_checkpoint_update = false;
  uint64_t clean_bytes = 0;
  uint64_t cleanable_bytes = 0;
  // How long past max.compaction.lag.ms the oldest dirty segment is (0: not).
  int64_t compaction_delay_ms = 0;

  uint64_t total_bytes() const { return clean_bytes + cleanable_bytes; }
  double cleanable_ratio() const {
    return total_bytes() == 0 ? 0.0 : static_cast<double>(cleanable_bytes) / static_cast<double>(total_bytes());
  }
  bool needs_compaction_now() const { return compaction_delay_ms > 0; }
  // Kafka's grabFilthiestCompactedLog filter: some bytes and either forced
  // by max.compaction.lag.ms or dirtier than min.cleanable.dirty.ratio.
  bool should_clean(double min_cleanable_dirty_ratio) const {
    if (total_bytes() == 0) return false;
    return (needs_compaction_now() && cleanable_bytes > 0) || cleanable_ratio() > min_cleanable_dirty_ratio;
  }
};

cleanable_range plan_cleanable_range(const log_config& config, const cleanable_input& input);

}  // namespace hw::storage
