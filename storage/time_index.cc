#include "storage/time_index.h"

#include <cassert>
#include <vector>

#include "protocol/records/big_endian.h"

namespace hw::storage {

using protocol::load_big_endian;
using protocol::store_big_endian;

std::error_code time_index::open(file_system& fs, const std::filesystem::path& path, offset base_offset,
                                 int32_t max_index_bytes, std::unique_ptr<time_index>* out) {
  std::unique_ptr<index_file> f;
  std::vector<uint8_t> bytes;
  if (auto ec = index_file::open(fs, path, entry_bytes, &f, &bytes)) return ec;
  size_t loaded = bytes.size() / entry_bytes;
  size_t capacity = std::max<size_t>(static_cast<size_t>(std::max(max_index_bytes, 0)) / entry_bytes, loaded);
  auto index = std::unique_ptr<time_index>(new time_index(std::move(f), base_offset, capacity));
  for (size_t i = 0; i < loaded; ++i) {
    const uint8_t* p = bytes.data() + i * entry_bytes;
    index->store_slot(i, {load_big_endian<int64_t>(p), load_big_endian<int32_t>(p + 8)});
  }
  index->count_.store(loaded, std::memory_order_release);
  *out = std::move(index);
  return {};
}

time_index::time_index(std::unique_ptr<index_file> f, offset base, size_t capacity)
    : file_(std::move(f)), base_offset_(base), slots_(capacity) {}

time_index::slot time_index::load_slot(size_t i) const {
  auto* s = const_cast<slot*>(slots_.at(i));
  return {std::atomic_ref<int64_t>(s->timestamp).load(std::memory_order_relaxed),
          std::atomic_ref<int32_t>(s->relative).load(std::memory_order_relaxed)};
}

void time_index::store_slot(size_t i, slot v) {
  slot* s = slots_.prepare(i);
  std::atomic_ref<int64_t>(s->timestamp).store(v.timestamp, std::memory_order_relaxed);
  std::atomic_ref<int32_t>(s->relative).store(v.relative, std::memory_order_relaxed);
}

timestamp_offset time_index::entry(size_t i) const {
  slot s = load_slot(i);
  return {s.timestamp, base_offset_ + static_cast<int64_t>(s.relative)};
}

timestamp_offset time_index::last_entry() const {
  size_t n = entries();
  return n == 0 ? timestamp_offset{no_timestamp, base_offset_} : entry(n - 1);
}

timestamp_offset time_index::lookup(int64_t target_timestamp) const {
  size_t n = entries();
  if (n == 0 || load_slot(0).timestamp > target_timestamp) return {no_timestamp, base_offset_};
  size_t lo = 0, hi = n - 1;  // invariant: timestamp at lo <= target
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (load_slot(mid).timestamp <= target_timestamp)
      lo = mid;
    else
      hi = mid - 1;
  }
  return entry(lo);
}

ptrdiff_t time_index::floor_slot_by_offset(int64_t relative, size_t n) const {
  if (n == 0 || relative < load_slot(0).relative) return -1;
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (load_slot(mid).relative <= relative)
      lo = mid;
    else
      hi = mid - 1;
  }
  return static_cast<ptrdiff_t>(lo);
}

void time_index::maybe_append(int64_t timestamp, offset o, bool skip_full_check) {
  size_t n = count_.load(std::memory_order_relaxed);
  assert((skip_full_check || !full()) && "time index is full; the segment should have rolled");
  timestamp_offset last = last_entry();
  if (n > 0) {
    assert(o >= last.offset && "time index offsets must not decrease");
    assert(timestamp >= last.timestamp && "time index timestamps must not decrease");
  }
  if (timestamp <= last.timestamp) return;
  assert(n < slots_.capacity() && "time index has no slot left");
  int64_t relative = o - base_offset_;
  assert(relative >= 0 && relative <= INT32_MAX && "offset does not fit the time index");
  store_slot(n, {timestamp, static_cast<int32_t>(relative)});
  count_.store(n + 1, std::memory_order_release);
}

void time_index::truncate_to(offset o) {
  size_t n = count_.load(std::memory_order_relaxed);
  int64_t relative = o - base_offset_;
  ptrdiff_t s = floor_slot_by_offset(relative, n);
  size_t keep = 0;
  if (s >= 0) keep = load_slot(static_cast<size_t>(s)).relative == relative ? static_cast<size_t>(s) : s + 1;
  if (keep >= n) return;
  count_.store(keep, std::memory_order_release);
  file_->truncated_to(keep);
}

std::optional<std::string> time_index::sanity_check(offset next_offset) const {
  if (file_->loaded_bytes() % entry_bytes != 0)
    return "time index file size " + std::to_string(file_->loaded_bytes()) + " is not a multiple of 12";
  size_t n = entries();
  for (size_t i = 0; i < n; ++i) {
    slot s = load_slot(i);
    std::string where = "time index entry " + std::to_string(i) + " (timestamp " + std::to_string(s.timestamp) +
                        ", relative offset " + std::to_string(s.relative) + ")";
    if (s.relative < 0) return where + " has a negative relative offset";
    if (base_offset_ + static_cast<int64_t>(s.relative) >= next_offset)
      return where + " is at or past the segment's next offset " + std::to_string(next_offset.value);
    if (i == 0) continue;
    slot prev = load_slot(i - 1);
    if (s.timestamp <= prev.timestamp) return where + " does not increase the timestamp";
    if (s.relative < prev.relative) return where + " decreases the offset";
  }
  return std::nullopt;
}

std::error_code time_index::write_out() {
  return file_->write_out(entries(), [this](size_t i, uint8_t* p) {
    slot s = load_slot(i);
    store_big_endian<int64_t>(p, s.timestamp);
    store_big_endian<int32_t>(p + 8, s.relative);
  });
}

std::error_code time_index::flush() {
  if (auto ec = write_out()) return ec;
  return file_->sync();
}

}  // namespace hw::storage
