#pragma once
// One segment of a partition log: `<base offset %020d>.log` holding record
// batches back to back exactly as they arrived (v2, offsets assigned), with
// its `.index` (offset → position) and `.timeindex` (timestamp → offset).
// Byte-compatible with Apache Kafka's LogSegment; where Kafka decides
// something (when to add an index entry, when to roll, what recovery keeps)
// this class decides it the same way.
//
// Ownership and threads: owned by its log (shared with the segment-list
// snapshots readers hold, so a deleted segment stays readable through its
// open descriptors). The writer methods (append, truncate_to, recover,
// on_become_inactive, close, rename/remove) run on the log's single writer,
// the partition strand. flush() may run on the blocking pool at the same
// time as an append; a small mutex serialises it with the writer's index
// write-outs and truncation. The reader methods (end, read,
// translate_offset, find_offset_by_timestamp, max_timestamp...) may run on
// any thread at any time: the writer publishes the end (next offset and
// size, in one atomic word) with a release store after the bytes and index
// entries are in place.
//
// The segment also owns its `.txnindex` (storage/transaction_index.h): the
// file is created by the first append_aborted_txn(), emptied by recover()
// (the caller re-appends the aborts of the recovered batches, as Kafka's
// recovery rebuilds it from producer state), cut by truncate_to(), synced by
// flush(), and renamed and removed with the other files.

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
#include <type_traits>

#include "protocol/records/record_batch.h"
#include "storage/io/file_system.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"
#include "storage/types.h"

namespace hw::storage {

// Expected failures of log and segment operations (file-layer failures come
// as the file layer's own std::error_code).
enum class log_errc {
  offset_out_of_range = 1,   // an offset outside [log start, log end]
  log_offline,               // an earlier write/fsync failed, or the log is closed: no more writes
  record_batch_too_large,    // one append larger than segment.bytes
  offset_overflow,           // an append's offsets do not fit one segment (int32 relative)
  unexpected_append_offset,  // a follower append starting below the log end offset
  offsets_out_of_order,      // batches whose offsets do not strictly increase
  invalid_records,           // not a sequence of whole v2 batches
  segments_changed,          // cleaned segments no longer match the log (truncated or deleted meanwhile)
};
const std::error_category& log_category();
std::error_code make_error_code(log_errc e);

}  // namespace hw::storage

template <>
struct std::is_error_code_enum<hw::storage::log_errc> : std::true_type {};

namespace hw::storage {

inline constexpr std::string_view log_file_suffix = ".log";
inline constexpr std::string_view index_file_suffix = ".index";
inline constexpr std::string_view time_index_file_suffix = ".timeindex";
inline constexpr std::string_view txn_index_file_suffix = ".txnindex";
inline constexpr std::string_view deleted_file_suffix = ".deleted";
inline constexpr std::string_view cleaned_file_suffix = ".cleaned";
inline constexpr std::string_view swap_file_suffix = ".swap";

// "00000000000000000042" + suffix.
std::string segment_file_name(offset base, std::string_view suffix);
// The base offset a segment or index file name starts with (the digits
// before the first '.'), or nothing.
std::optional<offset> offset_from_file_name(std::string_view name);

struct segment_options {
  int32_t index_interval_bytes = 4096;
  int32_t max_index_bytes = 10 * 1024 * 1024;
  // Subtracted from segment.ms for this segment (see log_config).
  int64_t roll_jitter_ms = 0;
  // The clock when the segment was created or loaded.
  int64_t now_ms = 0;
};

// Kafka's RollParams: what should_roll() weighs for the next append.
struct roll_params {
  int64_t max_segment_ms = 0;
  int32_t max_segment_bytes = 0;
  int64_t max_timestamp_in_messages = no_timestamp;
  offset max_offset_in_messages;
  int32_t messages_bytes = 0;
  int64_t now_ms = 0;
};

// Where one batch sits in the segment file.
struct batch_position {
  offset base_offset;
  offset last_offset;
  uint32_t position = 0;
  uint32_t size = 0;
};

// The readable end of a segment, published as one value.
struct segment_end {
  offset next_offset;
  uint32_t size = 0;
};

struct segment_read_result {
  bool found = false;  // false: no batch at or after the start offset here
  // Keeps the descriptor open while the range is sent (sendfile or pread).
  std::shared_ptr<file> log_file;
  uint64_t position = 0;
  uint64_t length = 0;
  batch_position first_batch;
  // max_bytes was smaller than the first batch and min_one_batch was off.
  bool first_batch_incomplete = false;
};

struct timestamp_and_offset {
  int64_t timestamp = no_timestamp;
  storage::offset offset;
  std::optional<leader_epoch> epoch;  // the batch's partition leader epoch, when set
};

// Called with each valid batch found by recover(), in order.
using batch_visitor = std::function<void(const protocol::record_batch_view&)>;

struct recovery_result {
  uint64_t bytes_truncated = 0;
  // Why the scan stopped before the end of the file (empty when it did not).
  std::string stop_reason;
};

class segment {
 public:
  // Creates the files of a new, empty segment (the log deletes stale files
  // of the same name first). A file_suffix is appended to every file name
  // (the cleaner writes `.cleaned` segments, renamed into place later).
  static std::error_code create(file_system& fs, const std::filesystem::path& dir, offset base,
                                const segment_options& options, std::unique_ptr<segment>* out,
                                std::string_view file_suffix = {});
  // Opens an existing segment and loads its state from the indexes and the
  // tail of the log. *index_problem says why the indexes cannot be trusted
  // (missing, failing the sanity check, a log that does not end on a batch
  // boundary, a corrupt `.txnindex`, which is then emptied); the caller must
  // then recover() the segment, and logs why.
  static std::error_code open(file_system& fs, const std::filesystem::path& dir, offset base,
                              const segment_options& options, std::unique_ptr<segment>* out,
                              std::optional<std::string>* index_problem);
  // The next offset after the last whole batch of a log file (base when it
  // has none), found by walking its batch headers.
  static std::error_code scan_next_offset(file_system& fs, const std::filesystem::path& log_path, offset base,
                                          offset* out);

  ~segment();
  segment(const segment&) = delete;
  segment& operator=(const segment&) = delete;

  offset base_offset() const { return base_offset_; }
  const std::filesystem::path& log_path() const { return log_path_; }
  // The `.log` file, for readers that walk it themselves (the cleaner);
  // only bytes below end().size are meaningful.
  std::shared_ptr<file> log_file() const { return log_; }

  // --- any thread -----------------------------------------------------------
  segment_end end() const;
  // The first batch whose last offset >= target, scanning batch headers from
  // the index's floor entry (or start_position, if later) up to limit.
  std::error_code translate_offset(offset target, uint32_t start_position, uint32_t limit,
                                   std::optional<batch_position>* out) const;
  // Kafka's LogSegment.read: the bytes from the batch holding start_offset,
  // at most max_bytes (the whole first batch when min_one_batch) and ending
  // at or before max_position.
  std::error_code read(offset start_offset, int32_t max_bytes, uint32_t max_position, bool min_one_batch,
                       segment_read_result* out) const;
  // Kafka's findOffsetByTimestamp: the first record with timestamp >= target
  // and offset >= starting_offset.
  std::error_code find_offset_by_timestamp(int64_t target, offset starting_offset,
                                           std::optional<timestamp_and_offset>* out) const;
  // The largest batch timestamp so far and the last offset of its batch.
  timestamp_offset max_timestamp_so_far() const;
  // Kafka's getFirstBatchTimestamp: the first batch's max timestamp, or
  // nothing for an empty segment (max.compaction.lag.ms reads it).
  std::error_code first_batch_timestamp(std::optional<int64_t>* out) const;
  // The first record carrying the segment's max timestamp (ListOffsets MAX_TIMESTAMP).
  std::error_code find_max_timestamp_record(std::optional<timestamp_and_offset>* out) const;
  const offset_index& offsets() const { return *offset_index_; }
  const time_index& times() const { return *time_index_; }
  const transaction_index& txn_index() const { return *txn_index_; }
  // Kafka's LogSegment.collectAbortedTxns: this segment's aborts overlapping
  // [fetch_start, fetch_upper).
  std::error_code collect_aborted_txns(offset fetch_start, offset fetch_upper, aborted_txn_search* out) const;

  // --- writer ---------------------------------------------------------------
  // Appends whole, validated batches whose offsets are assigned, above the
  // segment's next offset, and fitting int32 relative to the base (asserted).
  // Adds index entries per Kafka. On error nothing is published.
  std::error_code append(std::span<const uint8_t> batches);
  bool should_roll(const roll_params& params) const;
  // Records an aborted transaction whose ABORT marker (txn.last_offset) is
  // in this segment; creates `.txnindex` on the first one.
  std::error_code append_aborted_txn(const aborted_txn& txn);
  // Removes every batch with an offset >= o (a batch holding o goes whole)
  // and their index entries, and makes the cut durable (fdatasync).
  std::error_code truncate_to(offset o, int64_t now_ms, uint64_t* bytes_truncated);
  // Scans from the start: framing, CRC32C, magic 2, offsets increasing and
  // not below the base, relative offsets fitting int32. Truncates at the
  // first invalid byte and rebuilds both indexes from the valid batches;
  // the result is fdatasynced.
  std::error_code recover(const batch_visitor& visit, recovery_result* out);
  // The segment stops being active: the final time index entry (the max
  // timestamp), indexes written out.
  std::error_code on_become_inactive();
  // fdatasync of the log, then the indexes written out and fdatasynced.
  std::error_code flush();
  // on_become_inactive(), leaving index files at their real size.
  std::error_code close() { return on_become_inactive(); }
  // Kafka's two-step delete: every file renamed to `<name>.deleted` (readers
  // keep their descriptors), then removed.
  std::error_code rename_to_deleted();
  std::error_code remove_files();

 private:
  segment(file_system& fs, std::filesystem::path dir, offset base, const segment_options& options,
          std::string_view file_suffix = {});
  std::error_code open_files(open_mode mode);
  std::error_code open_txn_index(std::optional<std::string>* problem);
  std::error_code load_state(std::optional<std::string>* problem);
  void publish_end(offset next, uint32_t size);
  void set_max_timestamp(int64_t timestamp, offset o);
  std::error_code recompute_max_timestamp();
  void index_batch(offset last_offset, int64_t max_timestamp, uint32_t position, uint32_t size);
  std::error_code scan_records(uint32_t from, uint32_t limit,
                               const std::function<bool(const protocol::record_batch_view&)>& visit) const;

  file_system& fs_;
  std::filesystem::path dir_;
  std::filesystem::path log_path_;
  offset base_offset_;
  std::string file_suffix_;
  segment_options options_;
  std::shared_ptr<file> log_;
  std::unique_ptr<offset_index> offset_index_;
  std::unique_ptr<time_index> time_index_;
  std::unique_ptr<transaction_index> txn_index_;

  // Published: relative next offset (high 32 bits) and size (low 32 bits).
  std::atomic<uint64_t> end_{0};
  // Writer copies of the end.
  offset next_offset_;
  uint32_t size_ = 0;

  // The max batch timestamp and its batch's last offset, read by ListOffsets
  // on other threads; a mutex keeps the pair consistent (leaf, uncontended).
  mutable std::mutex max_timestamp_mutex_;
  timestamp_offset max_timestamp_;

  // Writer only: Kafka's rollingBasedTimestamp (the first batch's max
  // timestamp), creation time and bytes since the last index entry.
  std::optional<int64_t> rolling_based_timestamp_;
  int64_t created_ms_ = 0;
  uint32_t bytes_since_last_index_entry_ = 0;

  // Serialises index write-out, truncation and fdatasync between the writer
  // and a flush running on the blocking pool.
  std::mutex file_mutex_;
};

}  // namespace hw::storage
