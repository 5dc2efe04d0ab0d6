#include "broker/group/offset_store.h"

namespace hw::broker::group {

void offset_store::put(std::string_view group, std::string_view topic, int32_t partition,
                       committed_offset value) {
  auto g = groups_.find(group);
  if (g == groups_.end()) g = groups_.emplace(std::string(group), topics{}).first;
  auto t = g->second.find(topic);
  if (t == g->second.end()) t = g->second.emplace(std::string(topic), partitions{}).first;
  t->second.insert_or_assign(partition, std::move(value));
}

bool offset_store::erase(std::string_view group, std::string_view topic, int32_t partition) {
  auto g = groups_.find(group);
  if (g == groups_.end()) return false;
  auto t = g->second.find(topic);
  if (t == g->second.end()) return false;
  bool erased = t->second.erase(partition) > 0;
  // Empty maps go, so "has offsets" stays a simple lookup.
  if (t->second.empty()) g->second.erase(t);
  if (g->second.empty()) groups_.erase(g);
  return erased;
}

const committed_offset* offset_store::get(std::string_view group, std::string_view topic,
                                          int32_t partition) const {
  const topics* g = group_offsets(group);
  if (!g) return nullptr;
  auto t = g->find(topic);
  if (t == g->end()) return nullptr;
  auto p = t->second.find(partition);
  return p == t->second.end() ? nullptr : &p->second;
}

const offset_store::topics* offset_store::group_offsets(std::string_view group) const {
  auto g = groups_.find(group);
  return g == groups_.end() ? nullptr : &g->second;
}

}  // namespace hw::broker::group
