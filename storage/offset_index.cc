#include "storage/offset_index.h"

#include <cassert>
#include <limits>
#include <vector>

#include "protocol/records/big_endian.h"

namespace hw::storage {

using protocol::load_big_endian;
using protocol::store_big_endian;

std::error_code offset_index::open(file_system& fs, const std::filesystem::path& path, offset base_offset,
                                   int32_t max_index_bytes, std::unique_ptr<offset_index>* out) {
  std::unique_ptr<index_file> f;
  std::vector<uint8_t> bytes;
  if (auto ec = index_file::open(fs, path, entry_bytes, &f, &bytes)) return ec;
  size_t loaded = bytes.size() / entry_bytes;
  size_t capacity = std::max<size_t>(static_cast<size_t>(std::max(max_index_bytes, 0)) / entry_bytes, loaded);
  auto index = std::unique_ptr<offset_index>(new offset_index(std::move(f), base_offset, capacity));
  for (size_t i = 0; i < loaded; ++i) {
    const uint8_t* p = bytes.data() + i * entry_bytes;
    *index->slots_.prepare(i) = pack(load_big_endian<int32_t>(p), load_big_endian<uint32_t>(p + 4));
  }
  index->count_.store(loaded, std::memory_order_release);
  *out = std::move(index);
  return {};
}

offset_index::offset_index(std::unique_ptr<index_file> f, offset base, size_t capacity)
    : file_(std::move(f)), base_offset_(base), slots_(capacity) {}

uint64_t offset_index::load_slot(size_t i) const {
  // atomic_ref needs a non-const object; the slot is only read here.
  auto* slot = const_cast<uint64_t*>(slots_.at(i));
  return std::atomic_ref<uint64_t>(*slot).load(std::memory_order_relaxed);
}

offset_position offset_index::entry(size_t i) const {
  uint64_t v = load_slot(i);
  return {base_offset_ + static_cast<int64_t>(static_cast<int32_t>(v >> 32)), static_cast<uint32_t>(v)};
}

offset offset_index::last_offset() const {
  size_t n = entries();
  return n == 0 ? base_offset_ : entry(n - 1).offset;
}

bool offset_index::can_append_offset(offset o) const {
  int64_t relative = o - base_offset_;
  return relative >= 0 && relative <= std::numeric_limits<int32_t>::max();
}

ptrdiff_t offset_index::floor_slot(int64_t relative, size_t n) const {
  if (n == 0 || relative < relative_at(0)) return -1;
  size_t lo = 0, hi = n - 1;  // invariant: relative_at(lo) <= relative
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (relative_at(mid) <= relative)
      lo = mid;
    else
      hi = mid - 1;
  }
  return static_cast<ptrdiff_t>(lo);
}

offset_position offset_index::lookup(offset target) const {
  size_t n = entries();
  ptrdiff_t slot = floor_slot(target - base_offset_, n);
  if (slot < 0) return {base_offset_, 0};
  return entry(static_cast<size_t>(slot));
}

void offset_index::append(offset o, uint32_t position) {
  size_t n = count_.load(std::memory_order_relaxed);
  assert(n < slots_.capacity() && "offset index is full; the segment should have rolled");
  assert(can_append_offset(o) && "offset does not fit the index relative to its base");
  auto relative = static_cast<int32_t>(o - base_offset_);
  assert((n == 0 || relative > relative_at(n - 1)) && "offset index entries must increase");
  uint64_t* slot = slots_.prepare(n);
  std::atomic_ref<uint64_t>(*slot).store(pack(relative, position), std::memory_order_relaxed);
  count_.store(n + 1, std::memory_order_release);
}

void offset_index::truncate_to(offset o) {
  size_t n = count_.load(std::memory_order_relaxed);
  int64_t relative = o - base_offset_;
  ptrdiff_t slot = floor_slot(relative, n);
  size_t keep = 0;
  if (slot >= 0) keep = relative_at(static_cast<size_t>(slot)) == relative ? static_cast<size_t>(slot) : slot + 1;
  if (keep >= n) return;
  count_.store(keep, std::memory_order_release);
  file_->truncated_to(keep);
}

std::optional<std::string> offset_index::sanity_check(uint64_t log_bytes) const {
  if (file_->loaded_bytes() % entry_bytes != 0)
    return "index file size " + std::to_string(file_->loaded_bytes()) + " is not a multiple of 8";
  size_t n = entries();
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = load_slot(i);
    auto relative = static_cast<int32_t>(v >> 32);
    auto position = static_cast<uint32_t>(v);
    std::string where = "entry " + std::to_string(i) + " (relative offset " + std::to_string(relative) +
                        ", position " + std::to_string(position) + ")";
    if (relative < 0) return where + " has a negative relative offset";
    if (position >= log_bytes) return where + " points past the log's " + std::to_string(log_bytes) + " bytes";
    if (i == 0) continue;
    uint64_t prev = load_slot(i - 1);
    if (relative <= static_cast<int32_t>(prev >> 32)) return where + " does not increase the offset";
    if (position <= static_cast<uint32_t>(prev)) return where + " does not increase the position";
  }
  return std::nullopt;
}

std::error_code offset_index::write_out() {
  return file_->write_out(entries(), [this](size_t i, uint8_t* p) {
    uint64_t v = load_slot(i);
    store_big_endian<uint32_t>(p, static_cast<uint32_t>(v >> 32));
    store_big_endian<uint32_t>(p + 4, static_cast<uint32_t>(v));
  });
}

std::error_code offset_index::flush() {
  if (auto ec = write_out()) return ec;
  return file_->sync();
}

}  // namespace hw::storage
