#pragma once
// A segment's `.txnindex`: the transactions aborted by markers in that
// segment, in Kafka's format (AbortedTxn), so a read_committed fetch can
// tell the consumer which producers' records to drop. Each entry is 34
// bytes, big-endian:
//
//   int16 version (0) | int64 producer id | int64 first offset |
//   int64 last offset (the ABORT marker) | int64 last stable offset at the abort
//
// Entries are appended in increasing last offset. Like Kafka, the file is
// created only by the first append. Loading checks every entry (version,
// increasing last offsets, none below the segment's base offset) and drops
// a torn partial entry at the end (an append cut by a crash) by truncating
// the file.
//
// Owned by its segment. append, flush, truncate_to and reset run on the
// partition strand (single writer); collect_aborted and all may run on any
// thread at the same time: the writer publishes the entry count after the
// bytes are written, and readers read only that many entries.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "storage/io/file_system.h"
#include "storage/types.h"

namespace hw::storage {

inline constexpr size_t aborted_txn_size = 34;

struct aborted_txn {
  producer_id id;
  offset first_offset;
  offset last_offset;
  offset last_stable_offset;
  bool operator==(const aborted_txn&) const = default;
};

std::array<uint8_t, aborted_txn_size> encode_aborted_txn(const aborted_txn& txn);

struct aborted_txn_search {
  std::vector<aborted_txn> aborted;
  // An entry's last stable offset reached the fetch's upper bound, so later
  // segments cannot hold aborts that overlap the fetch.
  bool complete = false;
};

class transaction_index {
 public:
  // Opens (and validates) path if it exists; otherwise the file is created
  // by the first append.
  static storage_error open(file_system& fs, std::filesystem::path path, offset base_offset,
                            std::unique_ptr<transaction_index>* out);

  transaction_index(const transaction_index&) = delete;
  transaction_index& operator=(const transaction_index&) = delete;

  // Asserts that last offsets increase (the producer state guarantees it).
  storage_error append(const aborted_txn& txn);
  storage_error flush();
  // Drops the entries whose last offset is >= o (a log truncation to o).
  storage_error truncate_to(offset o);
  storage_error reset();

  // Kafka's collectAbortedTxns: the aborts overlapping [fetch_start,
  // fetch_upper): last offset >= fetch_start and first offset < fetch_upper.
  storage_error collect_aborted(offset fetch_start, offset fetch_upper, aborted_txn_search* out) const;
  storage_error all(std::vector<aborted_txn>* out) const;

  size_t size() const { return count_.load(std::memory_order_acquire); }
  bool empty() const { return size() == 0; }
  offset base_offset() const { return base_offset_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  transaction_index(file_system& fs, std::filesystem::path path, offset base_offset)
      : fs_(fs), path_(std::move(path)), base_offset_(base_offset) {}

  storage_error load();
  // Reads entries [first, first + n) of the published ones.
  storage_error read(size_t first, size_t n, std::vector<aborted_txn>* out) const;
  storage_error io_error(std::error_code ec, const char* what) const;

  file_system& fs_;
  const std::filesystem::path path_;
  const offset base_offset_;
  std::unique_ptr<file> file_;         // set before the first count_ > 0 is published
  std::atomic<size_t> count_{0};       // entries readers may read
  std::optional<offset> last_offset_;  // of the last entry; writer only
};

}  // namespace hw::storage
