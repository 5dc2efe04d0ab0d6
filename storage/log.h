#pragma once
// The log of one partition: the segments of `<log.dir>/<topic>-<partition>/`
// in Kafka's on-disk format. Appends (offsets assigned in place on the
// leader, kept on a follower), reads as file ranges, roll, truncation (from
// the end for followers, from the start for DeleteRecords and retention),
// lookup by timestamp, flush and the recovery point, and loading with
// Kafka's recovery after an unclean shutdown.
//
// Ownership and threads: owned by the partition. One writer, the partition
// strand, calls every non-const method except flush(); flush() may also run
// on the blocking pool (one flush at a time), concurrently with the writer.
// Readers (fetch, ListOffsets, from any thread) call the const methods and
// never block the writer: the writer publishes an immutable snapshot of the
// segment list (a std::shared_ptr swapped under a mutex held for a pointer
// copy, never across I/O) and the log end offset,
// log start offset and recovery point with release stores; a reader loads
// them once and reads with pread or returns a file range. A segment removed
// by truncation or retention stays readable through the snapshot holding it.
// A reader racing a truncation may be handed bytes that are being cut away
// or rewritten; it never sees torn memory, and the end offset it was given
// is already lowered before the cut.
//
// Errors: a failed write, truncate, rename or fsync is returned (never
// reported as success) and takes the log offline: every later write fails
// with log_errc::log_offline; the log manager then takes the directory
// offline (KAFKA_STORAGE_ERROR). Reads keep working.
//
// Not here (other files): the leader-epoch cache and producer state are
// rebuilt by the caller from the batches open() hands to its visitor, and
// from what append() reports. So are the aborted transactions of recovered
// segments (recovery empties their `.txnindex`): the caller re-appends them
// with append_aborted_txn() once open() returns.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "storage/io/file_system.h"
#include "storage/log_config.h"
#include "storage/segment.h"
#include "storage/types.h"

namespace hw::storage {

// ListOffsets' special timestamps (Kafka's ListOffsetsRequest constants).
inline constexpr int64_t latest_timestamp = -1;
inline constexpr int64_t earliest_timestamp = -2;
inline constexpr int64_t max_timestamp = -3;
inline constexpr int64_t earliest_local_timestamp = -4;

struct log_open_options {
  // From recovery-point-offset-checkpoint: every segment from the one
  // holding it onwards is scanned after an unclean shutdown.
  offset recovery_point;
  // The log dir's clean-shutdown marker was present.
  bool had_clean_shutdown = false;
  // From log-start-offset-checkpoint.
  offset log_start_offset;
  int64_t now_ms = 0;
  // Seeds the choice of each segment's roll jitter (segment.jitter.ms).
  uint64_t jitter_seed = 0;
  // The directory is new and the caller syncs it before anything is
  // written to the log (partition_log's pending partition.metadata), so
  // creating the first segment does not sync it here.
  bool defer_directory_sync = false;
  // Each valid batch of every segment that recovery scanned, in order, so
  // the caller can rebuild producer state and the leader-epoch cache.
  batch_visitor on_recovered_batch;
};

// What opening did, for the caller to log and act on.
struct log_load_report {
  offset log_start_offset;
  offset recovery_point;
  offset log_end_offset;
  uint64_t bytes_truncated = 0;
  size_t segments_recovered = 0;
  // One line per notable step: an index rebuilt and why, a segment truncated
  // or deleted by recovery, leftovers removed or swapped in.
  std::vector<std::string> events;
};

enum class append_origin {
  leader,       // assign offsets from the log end, stamp the leader epoch
  replication,  // a follower: offsets and epochs as the leader wrote them
};

struct append_options {
  append_origin origin = append_origin::leader;
  // The partition leader epoch written into each batch on a leader append.
  leader_epoch epoch{0};
  int64_t now_ms = 0;
};

// Where an offset lives: Kafka's LogOffsetMetadata.
struct log_offset_metadata {
  storage::offset offset;
  storage::offset segment_base_offset;
  uint32_t position = 0;
};

struct append_result {
  offset first_offset{-1};
  offset last_offset{-1};
  size_t batches = 0;
  uint64_t bytes = 0;
  // The stamp written under LOG_APPEND_TIME, else no_timestamp.
  int64_t log_append_time_ms = no_timestamp;
  int64_t max_timestamp = no_timestamp;
  // The last offset of the batch with max_timestamp (Kafka's shallow offset).
  offset offset_of_max_timestamp{-1};
  // Where the first batch landed.
  log_offset_metadata first_position;
};

struct log_read_result {
  // The byte range to send: whole batches, except that the range may end
  // inside one (only when the first batch did not fit and min_one_batch was
  // off, in which case length is max_bytes). log_file is null when empty.
  std::shared_ptr<file> log_file;
  uint64_t position = 0;
  uint64_t length = 0;
  // The fetch offset's place (the first batch at or after it, or the end).
  log_offset_metadata fetch_offset;
  bool first_batch_incomplete = false;
};

// A segment as retention sees it.
struct segment_info {
  offset base_offset;
  offset next_offset;
  uint64_t size_bytes = 0;
  int64_t max_timestamp = no_timestamp;
};

// A cleaned segment waiting to replace the segments it was made from: its
// `.cleaned` files at base_offset (storage/cleaner.h writes them), and the
// segments it replaces as the cleaner read them (oldest first, contiguous,
// none active).
struct cleaned_segment_swap {
  offset base_offset;
  std::vector<std::shared_ptr<const segment>> replaced;
  std::vector<segment_end> replaced_ends;
};

class log {
 public:
  static std::error_code open(file_system& fs, const std::filesystem::path& dir, const log_config& config,
                              const log_open_options& options, std::unique_ptr<log>* out, log_load_report* report);
  ~log();
  log(const log&) = delete;
  log& operator=(const log&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  const log_config& config() const { return config_; }
  void set_config(const log_config& config) { config_ = config; }
  // Where the writer reports what an operator reads in the broker log (a
  // roll, a truncation), in Kafka's words, with the Kafka class that logs
  // it ("LocalLog", "UnifiedLog"); set before the log is shared.
  using event_sink = std::function<void(std::string_view kafka_class, const std::string& line)>;
  void set_event_sink(event_sink sink) { event_sink_ = std::move(sink); }
  // Told the new active segment's base offset after each roll, on the
  // writer, so that the owner can have everything below it flushed off the
  // writer soon (Kafka's flush after roll: the recovery point keeps up with
  // the rolls even when no log.flush.* setting asks for flushes). Must not
  // block; set before the log is shared.
  using roll_listener = std::function<void(offset new_base)>;
  void set_roll_listener(roll_listener listener) { roll_listener_ = std::move(listener); }

  // --- any thread -------------------------------------------------------------
  offset log_end_offset() const { return offset(log_end_.load(std::memory_order_acquire)); }
  offset log_start_offset() const { return offset(log_start_.load(std::memory_order_acquire)); }
  offset recovery_point() const { return offset(recovery_point_.load(std::memory_order_acquire)); }
  bool offline() const { return offline_.load(std::memory_order_acquire); }
  size_t segment_count() const;
  uint64_t size_bytes() const;
  // The current segments, oldest first (the last is active): what the
  // cleaner reads. Kept alive (and readable) as long as the caller holds them.
  std::vector<std::shared_ptr<const segment>> segments() const;
  std::vector<segment_info> segment_infos() const;

  // Kafka's read: the batches from the one holding start (at most max_bytes,
  // the whole first batch when min_one_batch), ending before the batch that
  // holds max_offset_exclusive (the HW, the LSO, or the log end), from one
  // segment. start outside [log start, log end] is offset_out_of_range.
  std::error_code read(offset start, int32_t max_bytes, offset max_offset_exclusive, bool min_one_batch,
                       log_read_result* out) const;
  // Where an offset in [log start, log end] sits (for the partition's HW and
  // LSO metadata, and delayed fetches).
  std::error_code offset_metadata(offset o, log_offset_metadata* out) const;
  // ListOffsets by time: the first record with timestamp >= ts at or after
  // the log start; or for the special timestamps: earliest (log start),
  // latest (log end), max_timestamp (the first record carrying the largest
  // timestamp). Nothing when no record qualifies. The epoch is the batch's
  // for real records; the caller fills it from its epoch cache for the
  // special ones.
  std::error_code offset_for_timestamp(int64_t timestamp, std::optional<timestamp_and_offset>* out) const;
  // Kafka's collectAbortedTransactions: the aborts overlapping [start_offset,
  // upper_offset), from the segment holding start_offset (or the first) on,
  // until a segment's search is complete; in last-offset order.
  std::error_code collect_aborted_transactions(offset start_offset, offset upper_offset,
                                               std::vector<aborted_txn>* out) const;

  // --- writer (partition strand) ------------------------------------------------
  // batches: whole v2 batches, already validated (CRC, header). A leader
  // append rewrites each base offset (from the log end), leader epoch, and
  // under LOG_APPEND_TIME the timestamp, in place; a replication append
  // requires offsets increasing from at least the log end.
  std::error_code append(std::span<uint8_t> batches, const append_options& options, append_result* out);
  // Starts a new segment at the log end (an empty active segment is kept).
  std::error_code roll(int64_t now_ms);
  // Removes every record at or above o (a follower's truncation); no-op when
  // o >= the log end. Durable before it returns.
  std::error_code truncate_to(offset o, int64_t now_ms);
  // Removes everything; the log restarts empty at o, with its start at o
  // (or log_start when given).
  std::error_code truncate_fully_and_start_at(offset o, int64_t now_ms,
                                              std::optional<offset> log_start = std::nullopt);
  // DeleteRecords: raises the log start offset to o (<= log end; the caller
  // checks the high watermark) and deletes the segments wholly below it.
  std::error_code advance_log_start_offset(offset o, int64_t now_ms);
  // Retention: deletes every segment all of whose offsets are below o
  // (rolling first when that includes a non-empty active segment) and raises
  // the log start offset to the first remaining segment. *deleted counts them.
  std::error_code delete_segments_below(offset o, int64_t now_ms, size_t* deleted);
  // Records an aborted transaction in the segment holding its ABORT marker
  // (txn.last_offset, in [log start, log end); on a live append that is the
  // active segment, as in Kafka). Last offsets must increase per segment.
  // Durable after the next flush, or at once when the recovery point
  // already covers the marker.
  std::error_code append_aborted_txn(const aborted_txn& txn);
  // Retention with Kafka's delayed delete: the segments whose base offset is
  // below base leave the log and their files are renamed to `.deleted`
  // (durably); the caller removes them later (segment::remove_files), and
  // readers holding them keep reading meanwhile. base is a segment's base
  // offset, or the log end offset to take every segment (the active one is
  // then rolled first). The log start offset is raised to the first
  // remaining segment before anything is renamed.
  std::error_code detach_segments_before(offset base, int64_t now_ms,
                                         std::vector<std::shared_ptr<segment>>* detached);
  // Compaction's swap (Kafka's replaceSegments), crash-safe at every step:
  // the `.cleaned` files become `.swap`, the replaced segments are renamed
  // `.deleted`, the directory is synced (the commit point: a crash before
  // it reloads the old segments, after it the cleaned one), the `.swap`
  // files take their final names and the directory is synced again; then
  // the cleaned segment is opened and published in place of the old ones.
  // Offsets, the log start and end and the recovery point do not move.
  // When the replaced segments are no longer in the log as the cleaner read
  // them (truncated, deleted, or the active one) nothing is swapped, the
  // `.cleaned` files are removed and log_errc::segments_changed returned.
  // *replaced receives the old segments (renamed `.deleted`) for the caller
  // to remove after file.delete.delay.ms; readers holding them keep reading.
  std::error_code install_cleaned(const cleaned_segment_swap& swap, int64_t now_ms,
                                  std::vector<std::shared_ptr<segment>>* replaced);
  // Removes the `.cleaned` files at base (an abandoned cleaning).
  std::error_code discard_cleaned(offset base);
  // fdatasyncs every segment holding offsets in [recovery point, up_to) (and
  // the directory when segments were created), then advances the recovery
  // point to min(up_to, log end). May run on the blocking pool.
  std::error_code flush(offset up_to);
  std::error_code flush() { return flush(log_end_offset()); }
  // Clean shutdown: the final time index entry, every file written and
  // synced, index files at their real size. No writes afterwards.
  std::error_code close();

 private:
  struct segment_list {
    std::vector<std::shared_ptr<segment>> segments;
  };
  class loader;

  log(file_system& fs, std::filesystem::path dir, const log_config& config, uint64_t jitter_seed);

  std::shared_ptr<const segment_list> snapshot() const {
    std::lock_guard lock(snapshot_mutex_);
    return published_;
  }
  void publish(std::vector<std::shared_ptr<segment>> segments);
  const std::shared_ptr<segment>& active() const { return current_->segments.back(); }
  segment_options options_for_new_segment(int64_t now_ms);
  std::error_code fail(std::error_code ec);
  std::error_code writable() const;
  std::error_code assign_or_check_offsets(std::span<uint8_t> batches, const append_options& options,
                                          append_result* out);
  std::error_code maybe_roll(const append_result& info, int64_t now_ms);
  std::error_code roll_at(offset new_base, int64_t now_ms);
  std::error_code truncate_fully_locked(offset o, int64_t now_ms, std::optional<offset> log_start);
  std::error_code delete_segment_files(const std::vector<std::shared_ptr<segment>>& doomed);
  std::error_code delete_prefix(size_t count);
  std::error_code timestamp_search(int64_t timestamp, const segment_list& list,
                                   std::optional<timestamp_and_offset>* out) const;
  std::error_code max_timestamp_search(const segment_list& list, std::optional<timestamp_and_offset>* out) const;

  file_system& fs_;
  std::filesystem::path dir_;
  log_config config_;
  uint64_t jitter_state_;
  event_sink event_sink_;
  roll_listener roll_listener_;

  // Readers' view. The list is swapped under a mutex held only for a
  // reference-count increment, not std::atomic<std::shared_ptr>: libstdc++
  // 12's load() drops its internal lock with a relaxed store, a race on
  // weakly-ordered CPUs (ThreadSanitizer reports it).
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const segment_list> published_;
  std::atomic<int64_t> log_end_{0};
  std::atomic<int64_t> log_start_{0};
  std::atomic<int64_t> recovery_point_{0};
  std::atomic<bool> offline_{false};
  // The writer's copy of the published list.
  std::shared_ptr<const segment_list> current_;

  // Segments were created since the last directory fsync.
  std::atomic<bool> directory_dirty_{false};
  // Keeps a flush on the pool and the writer's truncations from moving the
  // recovery point past each other (truncation is rare; appends never take it).
  std::mutex flush_mutex_;
  bool closed_ = false;
};

}  // namespace hw::storage
