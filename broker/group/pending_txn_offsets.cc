#include "broker/group/pending_txn_offsets.h"

#include <set>

namespace hw::broker::group {

void pending_txn_offsets::put(int64_t producer_id, entry e) {
  open_[producer_id][key{std::move(e.group), std::move(e.topic), e.partition}] = slot{std::move(e.value), false};
}

void pending_txn_offsets::supersede(std::string_view group, std::string_view topic, int32_t partition) {
  key k{std::string(group), std::string(topic), partition};
  for (auto& [pid, slots] : open_) {
    if (auto it = slots.find(k); it != slots.end()) it->second.superseded = true;
  }
}

void pending_txn_offsets::erase(std::string_view group, std::string_view topic, int32_t partition) {
  key k{std::string(group), std::string(topic), partition};
  for (auto& [pid, slots] : open_) slots.erase(k);
}

std::vector<pending_txn_offsets::entry> pending_txn_offsets::close(int64_t producer_id) {
  std::vector<entry> out;
  auto it = open_.find(producer_id);
  if (it == open_.end()) return out;
  for (auto& [k, s] : it->second) {
    if (s.superseded) continue;
    out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::move(s.value)});
  }
  open_.erase(it);
  return out;
}

bool pending_txn_offsets::pending(std::string_view group, std::string_view topic, int32_t partition) const {
  key k{std::string(group), std::string(topic), partition};
  for (const auto& [pid, slots] : open_) {
    if (slots.contains(k)) return true;
  }
  return false;
}

bool pending_txn_offsets::group_has_open(std::string_view group) const {
  for (const auto& [pid, slots] : open_) {
    for (const auto& [k, s] : slots) {
      if (std::get<0>(k) == group) return true;
    }
  }
  return false;
}

std::vector<std::pair<std::string, int32_t>> pending_txn_offsets::partitions_of(std::string_view group) const {
  std::set<std::pair<std::string, int32_t>> out;
  for (const auto& [pid, slots] : open_) {
    for (const auto& [k, s] : slots) {
      if (std::get<0>(k) == group) out.emplace(std::get<1>(k), std::get<2>(k));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace hw::broker::group
