#pragma once
// Kafka's `.timeindex` file: a sparse map from timestamp to offset, for
// ListOffsets by time and time-based retention. Each entry is 12 bytes,
// big-endian: int64 timestamp, int32 offset relative to the segment's base.
// An entry records the largest timestamp seen so far in the segment and the
// offset of the batch that carried it, so timestamps strictly increase and
// offsets never decrease. Entries are added at the offset index's points
// only when the max timestamp grew, and once more when the segment stops
// being active (Kafka's onBecomeInactiveSegment), so that the last entry is
// the segment's max timestamp; the last slot is kept for that final entry.
//
// Same memory and file model as offset_index (see offset_index.h): entries in
// memory, written out on flush/roll/close; owned by its segment; the writer
// is the partition strand; lookup() may run on any thread concurrently.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "storage/index_file.h"
#include "storage/io/file_system.h"
#include "storage/offset_index.h"
#include "storage/types.h"

namespace hw::storage {

// Kafka's RecordBatch.NO_TIMESTAMP.
inline constexpr int64_t no_timestamp = -1;

struct timestamp_offset {
  int64_t timestamp = no_timestamp;
  storage::offset offset;

  bool operator==(const timestamp_offset&) const = default;
};

class time_index {
 public:
  static constexpr size_t entry_bytes = 12;

  // Opens path (created empty if missing) and reads its entries; see
  // offset_index::open. Capacity: max_index_bytes / 12 entries.
  static std::error_code open(file_system& fs, const std::filesystem::path& path, offset base_offset,
                              int32_t max_index_bytes, std::unique_ptr<time_index>* out);

  offset base_offset() const { return base_offset_; }
  const std::filesystem::path& path() const { return file_->path(); }
  size_t max_entries() const { return slots_.capacity(); }
  size_t entries() const { return count_.load(std::memory_order_acquire); }
  // Full one slot early: the last slot belongs to the final entry.
  bool full() const { return entries() + 1 >= max_entries(); }
  timestamp_offset entry(size_t i) const;
  // The last entry, or (no_timestamp, base offset) when empty.
  timestamp_offset last_entry() const;

  // Kafka's TimeIndex.lookup: the entry with the largest timestamp <= target,
  // or (no_timestamp, base offset) when every entry is later. Thread-safe.
  timestamp_offset lookup(int64_t target_timestamp) const;

  // Appends (timestamp, o) when timestamp is above the last entry's. o below
  // the last entry's offset, a timestamp below the last one, or a full index
  // without skip_full_check are broken invariants (asserted).
  void maybe_append(int64_t timestamp, offset o, bool skip_full_check = false);
  // Removes every entry with offset >= o.
  void truncate_to(offset o);
  void reset() { truncate_to(base_offset_); }

  // Why the loaded index cannot be trusted, or nothing: a size that is not a
  // multiple of 12, negative relative offsets, timestamps that do not
  // strictly increase, offsets that decrease or reach next_offset.
  std::optional<std::string> sanity_check(offset next_offset) const;

  std::error_code write_out();
  std::error_code flush();
  void set_path(std::filesystem::path p) { file_->set_path(std::move(p)); }

 private:
  struct slot {
    int64_t timestamp;
    int32_t relative;
  };

  time_index(std::unique_ptr<index_file> f, offset base, size_t capacity);
  slot load_slot(size_t i) const;
  void store_slot(size_t i, slot s);
  ptrdiff_t floor_slot_by_offset(int64_t relative, size_t n) const;

  std::unique_ptr<index_file> file_;
  offset base_offset_;
  detail::chunked_slots<slot> slots_;
  std::atomic<size_t> count_{0};
};

}  // namespace hw::storage
