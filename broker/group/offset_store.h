#pragma once
// Committed offsets of every group of one shard, by group, topic and
// partition. Owned by a group_shard; runs on that shard's strand.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "broker/group/group_records.h"

namespace hw::broker::group {

class offset_store {
 public:
  using partitions = std::map<int32_t, committed_offset>;
  using topics = std::map<std::string, partitions, std::less<>>;

  void put(std::string_view group, std::string_view topic, int32_t partition, committed_offset value);
  // True when an offset was there.
  bool erase(std::string_view group, std::string_view topic, int32_t partition);
  const committed_offset* get(std::string_view group, std::string_view topic, int32_t partition) const;
  // nullptr when the group has no offsets.
  const topics* group_offsets(std::string_view group) const;
  void clear() { groups_.clear(); }
  size_t group_count() const { return groups_.size(); }

  bool operator==(const offset_store&) const = default;

 private:
  std::map<std::string, topics, std::less<>> groups_;
};

}  // namespace hw::broker::group
