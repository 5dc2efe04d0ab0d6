#pragma once
// What the consumer-group (KIP-848) tests and benchmarks share: topic ids
// made from a number, a topic image held in a map, and a member's heartbeat.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/consumer/target_assignment.h"
#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::testing {

inline protocol::uuid topic_id_of(uint8_t n) {
  protocol::uuid id;
  id.bytes[15] = n;
  return id;
}

// Topics by name, each with its id (topic_id_of) and partition count.
class topic_map_image final : public broker::group::consumer::topic_image_view {
 public:
  void add(const std::string& name, uint8_t id, int32_t partitions) { topics_[name] = {topic_id_of(id), partitions}; }
  std::optional<protocol::uuid> topic_id(std::string_view name) const override {
    auto it = topics_.find(std::string(name));
    if (it == topics_.end()) return std::nullopt;
    return it->second.first;
  }
  std::optional<std::string> topic_name(const protocol::uuid& id) const override {
    for (const auto& [name, t] : topics_)
      if (t.first == id) return name;
    return std::nullopt;
  }
  std::vector<std::string> topic_names() const override {
    std::vector<std::string> out;
    for (const auto& [name, t] : topics_) out.push_back(name);
    return out;
  }
  void remove(const std::string& name) { topics_.erase(name); }
  void set_version(int64_t version) { version_ = version; }
  void set_group_config(const std::string& group, const std::string& key, const std::string& value) {
    group_configs_[{group, key}] = value;
  }
  std::optional<std::string> group_config(std::string_view group, std::string_view key) const override {
    auto it = group_configs_.find({std::string(group), std::string(key)});
    if (it == group_configs_.end()) return std::nullopt;
    return it->second;
  }
  int64_t version() const override { return version_; }
  int32_t partition_count(const protocol::uuid& id) const override {
    for (const auto& [name, t] : topics_)
      if (t.first == id) return t.second;
    return -1;
  }

 private:
  std::map<std::string, std::pair<protocol::uuid, int32_t>> topics_;
  int64_t version_ = 0;
  std::map<std::pair<std::string, std::string>, std::string> group_configs_;
};

// A heartbeat of group "g" saying the member owns these partitions of topic
// topic_id_of(1) (what its last answer gave it).
inline protocol::msg::consumer_group_heartbeat_request heartbeat_owning(const std::string& member_id, int32_t epoch,
                                                                         std::vector<int32_t> owned) {
  protocol::msg::consumer_group_heartbeat_request r;
  r.group_id = "g";
  r.member_id = member_id;
  r.member_epoch = epoch;
  r.topic_partitions.emplace();
  auto& tp = r.topic_partitions->emplace_back();
  tp.topic_id = topic_id_of(1);
  tp.partitions = std::move(owned);
  return r;
}

}  // namespace hw::testing
