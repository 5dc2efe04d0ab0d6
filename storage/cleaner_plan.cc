#include "storage/cleaner_plan.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace hw::storage {
namespace {

// Kafka's logSegments(from, to): the segment holding `from` (or the first
// after it) up to those starting before `to`. Indices [first, last).
struct index_range {
  size_t first = 0;
  size_t last = 0;
};

index_range overlapping(std::span<const cleaner_segment_info> segs, offset from, offset to) {
  index_range r{segs.size(), 0};
  for (size_t i = 0; i < segs.size(); ++i) {
    bool starts_before_to = segs[i].base_offset < to;
    bool ends_after_from = i + 1 == segs.size() || segs[i + 1].base_offset > from;
    if (starts_before_to && ends_after_from) {
      r.first = std::min(r.first, i);
      r.last = i + 1;
    }
  }
  if (r.first > r.last) r.first = r.last;
  return r;
}

uint64_t bytes_of(std::span<const cleaner_segment_info> segs, index_range r) {
  uint64_t total = 0;
  for (size_t i = r.first; i < r.last; ++i) total += segs[i].size_bytes;
  return total;
}

// Kafka's nonActiveLogSegmentsFrom(from).
index_range non_active_from(std::span<const cleaner_segment_info> segs, offset from) {
  offset active = segs.back().base_offset;
  if (from > active) return {0, 0};
  return overlapping(segs, from, active);
}

}  // namespace

cleanable_range plan_cleanable_range(const log_config& config, const cleanable_input& in) {
  assert(!in.segments.empty() && "a log always has an active segment");
  const auto segs = in.segments;
  cleanable_range out;

  offset checkpoint = in.checkpoint.value_or(in.log_start_offset);
  if (checkpoint < in.log_start_offset || checkpoint > in.log_end_offset) {
    out.first_dirty_offset = in.log_start_offset;
    out.force_checkpoint_update = true;
  } else {
    out.first_dirty_offset = checkpoint;
  }

  offset uncleanable = std::min(in.last_stable_offset, segs.back().base_offset);
  int64_t min_lag = std::max<int64_t>(config.min_compaction_lag_ms, 0);
  index_range dirty = non_active_from(segs, out.first_dirty_offset);
  if (min_lag > 0) {
    for (size_t i = dirty.first; i < dirty.last; ++i) {
      if (segs[i].largest_timestamp > in.now_ms - min_lag) {
        uncleanable = std::min(uncleanable, segs[i].base_offset);
        break;
      }
    }
  }
  out.first_uncleanable_dirty_offset = std::max(out.first_dirty_offset, uncleanable);

  // calculateCleanableBytes: round down to the segment holding it.
  index_range from_uncleanable = non_active_from(segs, out.first_uncleanable_dirty_offset);
  out.first_uncleanable_offset =
      from_uncleanable.first < from_uncleanable.last ? segs[from_uncleanable.first].base_offset : segs.back().base_offset;
  out.cleanable_bytes = bytes_of(
      segs, overlapping(segs, std::min(out.first_dirty_offset, out.first_uncleanable_offset), out.first_uncleanable_offset));
  out.clean_bytes = bytes_of(segs, overlapping(segs, offset(-1), out.first_dirty_offset));

  // maxCompactionDelay: the oldest first-batch timestamp among the dirty
  // non-active segments (timestamps <= 0 ignored, as Kafka does).
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (size_t i = dirty.first; i < dirty.last; ++i) {
    auto ts = segs[i].first_batch_timestamp;
    if (ts && *ts > 0) earliest = std::min(earliest, *ts);
  }
  int64_t max_lag = std::max<int64_t>(config.max_compaction_lag_ms, 0);
  int64_t clean_until = in.now_ms - max_lag;  // now >= 0, so no overflow
  if (earliest < clean_until) out.compaction_delay_ms = clean_until - earliest;
  return out;
}

}  // namespace hw::storage
