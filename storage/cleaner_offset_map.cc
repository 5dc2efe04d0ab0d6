#include "storage/cleaner_offset_map.h"

#include <cassert>

namespace hw::storage {

void cleaner_offset_map::clear() {
  map_.clear();
  used_bytes_ = 0;
  latest_offset_ = offset(-1);
}

bool cleaner_offset_map::has_room_for(std::string_view key) const {
  if (map_.contains(key)) return true;
  return used_bytes_ + key.size() + entry_overhead_bytes <= budget_bytes_;
}

void cleaner_offset_map::put(std::string_view key, offset o) {
  auto it = map_.find(key);
  if (it != map_.end()) {
    assert(o.value >= it->second && "the map is built in offset order");
    it->second = o.value;
    return;
  }
  map_.emplace(std::string(key), o.value);
  used_bytes_ += key.size() + entry_overhead_bytes;
}

std::optional<offset> cleaner_offset_map::get(std::string_view key) const {
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  return offset(it->second);
}

}  // namespace hw::storage
