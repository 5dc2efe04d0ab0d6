#pragma once
// Kafka's `.index` file: a sparse map from offset to the file position of a
// batch in the segment's `.log`, one entry every `index.interval.bytes` of
// appended data. Each entry is 8 bytes, big-endian: int32 offset relative to
// the segment's base offset, int32 position. lookup() answers with the
// largest entry at or below a target (floor); the caller scans batch headers
// forward from there.
//
// The entries live in memory and reach the file on write_out() (flush, roll,
// close), as one write, so an append costs no syscall. The file always holds
// exactly the written entries (no preallocated tail), which is what Kafka
// leaves after a clean shutdown.
//
// Owned by its segment. append/truncate/write_out run on the log's writer
// (the partition strand; write_out also from a flush on the blocking pool,
// serialised by the segment). lookup() and entry() may run on any thread at
// the same time as append: entries are published with a release store of the
// count. A reader racing a truncation may see a slot rewritten by a later
// append; it then gets a valid entry of the new history, never torn memory.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "storage/index_file.h"
#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

namespace detail {

// A fixed-capacity array that one writer fills while readers search it. The
// slots are allocated in chunks when first reached, so an index sized for
// 10 MiB costs memory only as it fills, and never move once allocated.
// Slots are read and written through std::atomic_ref (relaxed): the count
// published by the owner orders them.
template <typename T>
class chunked_slots {
 public:
  static constexpr size_t chunk_slots = 4096;

  explicit chunked_slots(size_t capacity)
      : capacity_(capacity), chunks_(std::make_unique<std::unique_ptr<T[]>[]>(chunk_count(capacity))) {}

  size_t capacity() const { return capacity_; }

  // Writer only. Allocates the slot's chunk if needed.
  T* prepare(size_t i) {
    auto& chunk = chunks_[i / chunk_slots];
    if (!chunk) chunk = std::make_unique_for_overwrite<T[]>(chunk_slots);
    return &chunk[i % chunk_slots];
  }
  // Any thread, for i below a count the writer has published.
  const T* at(size_t i) const { return &chunks_[i / chunk_slots][i % chunk_slots]; }

 private:
  static size_t chunk_count(size_t capacity) { return (capacity + chunk_slots - 1) / chunk_slots; }

  size_t capacity_;
  std::unique_ptr<std::unique_ptr<T[]>[]> chunks_;
};

}  // namespace detail

struct offset_position {
  storage::offset offset;
  uint32_t position = 0;

  bool operator==(const offset_position&) const = default;
};

class offset_index {
 public:
  static constexpr size_t entry_bytes = 8;

  // Opens path (created empty if missing) and reads its entries. Nothing is
  // checked here; call sanity_check() before trusting a loaded index.
  // max_index_bytes is `segment.index.bytes`: the capacity in entries is
  // max_index_bytes / 8 (at least what the file holds).
  static std::error_code open(file_system& fs, const std::filesystem::path& path, offset base_offset,
                              int32_t max_index_bytes, std::unique_ptr<offset_index>* out);

  offset base_offset() const { return base_offset_; }
  const std::filesystem::path& path() const { return file_->path(); }
  size_t max_entries() const { return slots_.capacity(); }
  // Published entry count (acquire).
  size_t entries() const { return count_.load(std::memory_order_acquire); }
  bool full() const { return entries() >= max_entries(); }
  offset_position entry(size_t i) const;
  // The last entry's offset, or the base offset when empty (Kafka's lastOffset).
  offset last_offset() const;
  // Whether offset can be stored relative to the base offset (int32).
  bool can_append_offset(offset o) const;

  // The largest entry with offset <= target, or (base offset, 0) when there
  // is none. Thread-safe against the writer.
  offset_position lookup(offset target) const;

  // Writer. offset must be above the last entry and fit int32 relative to
  // the base, and the index must not be full: broken invariants, asserted.
  void append(offset o, uint32_t position);
  // Removes every entry with offset >= o.
  void truncate_to(offset o);
  void reset() { truncate_to(base_offset_); }

  // Why the loaded index cannot be trusted, or nothing: a size that is not a
  // multiple of 8, relative offsets that do not strictly increase (or are
  // negative), positions that do not strictly increase or lie at or past
  // log_bytes.
  std::optional<std::string> sanity_check(uint64_t log_bytes) const;

  // Brings the file to the in-memory entries (truncating it first if entries
  // were removed since the last write), in one write. No fsync.
  std::error_code write_out();
  // write_out(), then fdatasync.
  std::error_code flush();
  // Points the index at a renamed file (the caller renamed it).
  void set_path(std::filesystem::path p) { file_->set_path(std::move(p)); }

 private:
  offset_index(std::unique_ptr<index_file> f, offset base, size_t capacity);
  static uint64_t pack(int32_t relative, uint32_t position) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(relative)) << 32) | position;
  }
  uint64_t load_slot(size_t i) const;
  int32_t relative_at(size_t i) const { return static_cast<int32_t>(load_slot(i) >> 32); }
  // Index of the largest entry with relative offset <= relative among the
  // first n, or -1.
  ptrdiff_t floor_slot(int64_t relative, size_t n) const;

  std::unique_ptr<index_file> file_;
  offset base_offset_;
  detail::chunked_slots<uint64_t> slots_;
  std::atomic<size_t> count_{0};
};

}  // namespace hw::storage
