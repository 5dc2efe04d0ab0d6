// The Java behaviours that show in kafka-consumer-groups.sh's output beyond
// java.h: the tables Kafka's HashMaps end with (the reset plan, deletion
// results, warnings iterate in their order) and %-Ns padding.

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {

int32_t java_hash(const topic_partition& tp) { return java::topic_partition_hash(tp.topic, tp.partition); }

std::string pad(std::string_view s, size_t width) {
  std::string out(s);
  const size_t len = java::length(s);
  if (len < width) out.append(width - len, ' ');
  return out;
}

size_t java_map_capacity(size_t size) {
  size_t capacity = 16;
  while (size > capacity * 3 / 4) capacity *= 2;
  return capacity;
}

size_t java_put_all_capacity(size_t size, size_t added) {
  if (added == 0) return size == 0 ? 16 : java_map_capacity(size);
  size_t capacity = 1;
  if (size == 0) {
    // HashMap.putMapEntries on an empty map: tableSizeFor((int) (added / 0.75f + 1)).
    const auto wanted = static_cast<size_t>(static_cast<float>(added) / 0.75f + 1.0f);
    while (capacity < wanted) capacity *= 2;
    return capacity;
  }
  capacity = java_map_capacity(size);
  while (added > capacity * 3 / 4) capacity *= 2;  // resized ahead for the added map alone
  while (size + added > capacity * 3 / 4) capacity *= 2;
  return capacity;
}

std::vector<size_t> java_hash_order(const std::vector<int32_t>& hashes, size_t capacity) {
  java::hash_order map(capacity == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(capacity)));
  for (size_t i = 0; i < hashes.size(); ++i) map.put(hashes[i], i);
  return map.order();
}

std::vector<std::string> java_hash_order(const std::vector<std::string>& keys) { return java::hash_map_order(keys); }

std::vector<topic_partition> java_hash_order(const std::vector<topic_partition>& keys, size_t capacity) {
  std::vector<int32_t> hashes;
  for (const auto& k : keys) hashes.push_back(java_hash(k));
  std::vector<topic_partition> out;
  for (size_t i : java_hash_order(hashes, capacity)) out.push_back(keys[i]);
  return out;
}

kafka_error error_of(int16_t code, const std::optional<std::string>& broker_message) {
  return {get_offsets::exception_class(code), error_message(code, broker_message), code};
}

kafka_error timeout_error(const std::string& call) {
  return {"org.apache.kafka.common.errors.TimeoutException", "Timed out waiting for a node assignment. Call: " + call, 7};
}

}  // namespace hw::tools::groups
