#pragma once
// Topic metadata and ListOffsets as the Java admin client gets them
// (describeTopics, listTopics, listOffsets): shared by kafka-get-offsets.sh
// and kafka-consumer-groups.sh (log end offsets, resets). Also the Java
// exception each error code raises, since both tools print it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/client/admin_client.h"

namespace hw::tools::get_offsets {

// Kafka's TopicPartition; str() is its toString ("orders-0").
struct topic_partition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const topic_partition&) const = default;
  bool operator==(const topic_partition&) const = default;
  std::string str() const { return topic + "-" + std::to_string(partition); }
};

struct partition_info {
  int32_t partition = 0;
  int32_t leader = -1;  // -1: no leader (or one missing from the metadata)
};

struct topic_info {
  std::string name;
  int16_t error = 0;
  std::optional<std::string> error_message;
  bool internal = false;
  std::vector<partition_info> partitions;  // sorted by partition, as the admin client sorts them
};

// Metadata for these topics (nullopt: every topic), in the broker's order.
// False only when no answer came before the admin's deadline.
bool fetch_topics(admin_client& admin, const std::optional<std::vector<std::string>>& names,
                  std::vector<topic_info>* out, std::string* error);

struct offset_answer {
  int16_t error = 0;  // the partition's error (0: offset is the answer; -1: none)
  std::optional<std::string> error_message;
  int64_t offset = -1;
};

// ListOffsets for each partition at its leader, `timestamp` as the protocol
// spells the spec (-1 latest, -2 earliest, -3 max timestamp, ...).
// Retriable answers (no leader yet, not the leader, ...) are asked again
// until the admin's deadline, as the Java client retries them; a partition
// still failing then carries the error (7, timed out). False only when the
// metadata could not be read.
bool list_offsets(admin_client& admin, const std::vector<topic_partition>& partitions, int64_t timestamp,
                  std::map<topic_partition, offset_answer>* out, std::string* error);

// The Java exception class an error code raises
// ("org.apache.kafka.common.errors.GroupIdNotFoundException"); empty for 0.
std::string exception_class(int16_t code);
// Its toString(): "<class>: <message>", the message the broker's or the
// client's default for the code.
std::string exception_string(int16_t code, const std::optional<std::string>& broker_message = std::nullopt);

}  // namespace hw::tools::get_offsets
