#include "broker/group/image_topics.h"

#include <map>

namespace hw::broker::group {

std::optional<protocol::uuid> image_topics::topic_id(std::string_view name) const {
  auto it = image_->topics_by_name.find(name);
  if (it == image_->topics_by_name.end()) return std::nullopt;
  return it->second.value;
}

std::optional<std::string> image_topics::topic_name(const protocol::uuid& id) const {
  const auto* t = image_->topic(controller::topic_id(id));
  if (!t) return std::nullopt;
  return t->name;
}

std::vector<std::string> image_topics::topic_names() const {
  std::vector<std::string> out;
  out.reserve(image_->topics_by_name.size());
  for (const auto& [name, id] : image_->topics_by_name) out.push_back(name);
  return out;
}

int32_t image_topics::partition_count(const protocol::uuid& id) const {
  const auto* t = image_->topic(controller::topic_id(id));
  return t ? static_cast<int32_t>(t->partitions.size()) : -1;
}

std::vector<std::vector<std::string>> image_topics::partition_racks(const protocol::uuid& id) const {
  std::vector<std::vector<std::string>> out;
  const auto* t = image_->topic(controller::topic_id(id));
  if (!t) return out;
  bool any = false;
  for (const auto& [index, p] : t->partitions) {
    auto& racks = out.emplace_back();
    for (auto replica : p.replicas) {
      const auto* b = image_->broker(replica);
      if (b && b->rack) {
        racks.push_back(*b->rack);
        any = true;
      }
    }
  }
  if (!any) out.clear();
  return out;
}

std::optional<std::string> image_topics::group_config(std::string_view group_id, std::string_view key) const {
  return image_->config(controller::config_resource_type::group, group_id, key);
}

topic_changes changes_between(const controller::metadata_image& before, const controller::metadata_image& after) {
  topic_changes out;
  std::map<int32_t, std::optional<std::string>> racks_before, racks_after;
  for (const auto& [id, b] : before.brokers) racks_before[id.value] = b.rack;
  for (const auto& [id, b] : after.brokers) racks_after[id.value] = b.rack;
  const bool racks_moved = racks_before != racks_after;
  for (const auto& [id, t] : after.topics_by_id) {
    auto old = before.topics_by_id.find(id);
    if (old == before.topics_by_id.end()) {
      out.created = true;
      out.changed.insert(t->name);
    } else if (racks_moved || old->second != t) {
      out.changed.insert(t->name);
    }
  }
  for (const auto& [id, t] : before.topics_by_id)
    if (!after.topics_by_id.count(id)) out.changed.insert(t->name);
  return out;
}

}  // namespace hw::broker::group
