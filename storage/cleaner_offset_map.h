#pragma once
// The cleaner's key → latest offset map over the dirty section of a log
// (Kafka's OffsetMap / SkimpyOffsetMap), and the last offset the map has
// covered (latest_offset), which becomes the new cleaner checkpoint.
//
// Unlike Kafka, which keeps a 16-byte MD5 of each key, the map keeps the key
// itself: no two keys can collide (a collision would drop a live record),
// at the cost of memory proportional to the keys. The memory is bounded by
// a byte budget (log.cleaner.dedupe.buffer.size times its load factor):
// each entry is charged its key bytes plus a fixed overhead, and the
// builder stops (as Kafka's does at its slot limit) once the budget is
// reached; the next cleaning continues from latest_offset + 1.
//
// Owned by the cleaner, used on its thread only.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "storage/types.h"

namespace hw::storage {

class cleaner_offset_map {
 public:
  // What an entry costs beyond its key: roughly a hash node and an offset.
  static constexpr uint64_t entry_overhead_bytes = 48;

  explicit cleaner_offset_map(uint64_t budget_bytes) : budget_bytes_(budget_bytes) {}

  void clear();
  // Whether an entry for a key of this size still fits the budget (an
  // existing key always fits: its entry is only updated).
  bool has_room_for(std::string_view key) const;
  // Records key at o (offsets only grow). The caller checked has_room_for.
  void put(std::string_view key, offset o);
  // The latest offset of key, if mapped.
  std::optional<offset> get(std::string_view key) const;

  // The last offset the map covers; -1 when empty (Kafka's latestOffset).
  offset latest_offset() const { return latest_offset_; }
  void update_latest_offset(offset o) { latest_offset_ = std::max(latest_offset_, o); }

  size_t size() const { return map_.size(); }
  uint64_t used_bytes() const { return used_bytes_; }
  double utilization() const {
    return budget_bytes_ == 0 ? 1.0 : static_cast<double>(used_bytes_) / static_cast<double>(budget_bytes_);
  }

 private:
  // Lookups by string_view without building a std::string.
  struct key_hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  uint64_t budget_bytes_;
  uint64_t used_bytes_ = 0;
  std::unordered_map<std::string, int64_t, key_hash, std::equal_to<>> map_;
  offset latest_offset_{-1};
};

}  // namespace hw::storage
