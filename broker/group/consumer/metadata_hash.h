#pragma once
// The metadata hash a consumer group's record keeps (ConsumerGroupMetadata
// value's MetadataHash, KIP-1101): one XXH3-64 hash per subscribed topic
// over its id, name, partition count and each partition's racks, and one
// over those hashes in topic-name order. The coordinator compares it with
// the hash of the current topic image to see whether the topics a group
// subscribes to changed while it was not looking (a restart, a new
// coordinator). Values are exactly Kafka 4.3's for the same topics. Pure;
// any thread.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

struct topic_shape {
  protocol::uuid id;
  std::string name;
  int32_t partitions = 0;
  // Each partition's replicas' racks (any order); empty when no broker has one.
  std::vector<std::vector<std::string>> racks;
};

int64_t topic_hash(const topic_shape& topic);

// topic name → its topic_hash (0 for a topic that does not exist); 0 for none.
int64_t group_metadata_hash(const std::map<std::string, int64_t>& topic_hashes);

}  // namespace hw::broker::group::consumer
