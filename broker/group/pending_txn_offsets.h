#pragma once
// Offsets committed inside transactions whose marker has not been seen:
// invisible to OffsetFetch until a COMMIT marker moves them into the
// committed offsets (an ABORT drops them). Owned by a group_shard; runs on
// that shard's strand.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "broker/group/group_records.h"

namespace hw::broker::group {

class pending_txn_offsets {
 public:
  struct entry {
    std::string group;
    std::string topic;
    int32_t partition = 0;
    committed_offset value;
  };

  void put(int64_t producer_id, entry e);
  // A later plain commit of the same partition wins over the transaction's
  // (Kafka compares log offsets; replay order is log order).
  void supersede(std::string_view group, std::string_view topic, int32_t partition);
  // A tombstone removes the partition from every open transaction too.
  void erase(std::string_view group, std::string_view topic, int32_t partition);
  // The entries a COMMIT marker makes visible (superseded ones left out);
  // the transaction is closed either way.
  std::vector<entry> close(int64_t producer_id);

  bool pending(std::string_view group, std::string_view topic, int32_t partition) const;
  bool group_has_open(std::string_view group) const;
  // Every (topic, partition) of `group` in an open transaction.
  std::vector<std::pair<std::string, int32_t>> partitions_of(std::string_view group) const;
  void clear() { open_.clear(); }

 private:
  using key = std::tuple<std::string, std::string, int32_t>;
  struct slot {
    committed_offset value;
    bool superseded = false;
  };
  std::map<int64_t, std::map<key, slot>> open_;
};

}  // namespace hw::broker::group
