#pragma once
// Compaction of one log, the heavy half (Kafka's Cleaner.doClean): builds
// the key → latest offset map over the dirty section [first dirty offset,
// first uncleanable offset), then rewrites every segment below the map's
// end (clean and dirty alike) into `.cleaned` segments, grouped as Kafka
// groups them (consecutive segments while the sum of their sizes stays
// within segment.bytes, their index sizes within segment.index.bytes, and
// their offsets within one segment's int32 range). What each batch keeps is
// cleaner_filter.h's business; the transaction index of each cleaned
// segment holds the aborts whose markers it keeps. The result lists the
// swaps for the log's writer to install (log::install_cleaned) and the new
// cleaner checkpoint (the map's latest offset + 1).
//
// Threads: runs on the cleaner thread, concurrently with appends. It reads
// only non-active segments, through a snapshot of the segment list, and
// the log's const methods; the inputs that belong to the partition strand
// (the last stable offset, the active producers) are captured there by the
// caller before. Nothing here changes the log: until install_cleaned runs,
// the `.cleaned` files are invisible to it (and removed by a reload).

#include <cstdint>
#include <system_error>
#include <vector>

#include "storage/cleaner_filter.h"
#include "storage/io/file_system.h"
#include "storage/log.h"
#include "storage/types.h"

namespace hw::storage {

// The broker-wide cleaner settings (Kafka's CleanerConfig).
struct cleaner_config {
  // log.cleaner.dedupe.buffer.size (all of it: log.cleaner.threads = 1).
  uint64_t dedupe_buffer_bytes = 128ULL * 1024 * 1024;
  // log.cleaner.io.buffer.load.factor: the share of the buffer the map fills.
  double dedupe_buffer_load_factor = 0.9;
  // log.cleaner.io.buffer.size: the read chunk and the write batch size.
  uint32_t io_buffer_bytes = 512 * 1024;
  // log.cleaner.backoff.ms: the driver's wait when no log needs cleaning.
  int64_t backoff_ms = 15'000;
};

struct cleaning_request {
  // The log's settings, copied where they may be read (the log's own copy
  // belongs to its writer).
  log_config config;
  offset first_dirty_offset;
  // A segment's base offset (cleanable_range::first_uncleanable_offset).
  offset first_uncleanable_offset;
  // Captured on the partition strand (last_records_of).
  active_producer_records producers;
  int64_t now_ms = 0;
};

struct cleaning_stats {
  uint64_t map_bytes_read = 0;
  uint64_t map_records_read = 0;
  size_t map_entries = 0;
  double map_utilization = 0;
  size_t segments_read = 0;
  size_t segments_written = 0;
  cleaner_filter_stats filter;
};

struct cleaning_result {
  // The new cleaner checkpoint: everything below it is clean.
  offset end_offset;
  // In offset order; each replaces a run of segments.
  std::vector<cleaned_segment_swap> swaps;
  cleaning_stats stats;
};

// The heavy part: map, then `.cleaned` files. On an error every `.cleaned`
// file written so far is removed. No swap when the dirty section is empty.
std::error_code clean_log(file_system& fs, const log& l, const cleaner_config& config, const cleaning_request& request,
                          cleaning_result* out);

}  // namespace hw::storage
