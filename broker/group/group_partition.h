#pragma once
// Which __consumer_offsets partition coordinates a group. Pure function;
// any thread.

#include <cstdint>
#include <string_view>

namespace hw::broker::group {

// Java's String.hashCode over the UTF-16 code units of a UTF-8 string.
// Invalid UTF-8 bytes count as U+FFFD, as Java's decoder substitutes them.
int32_t java_string_hash(std::string_view utf8);

// abs(hashCode) % num_partitions with Kafka's Utils.abs (value & 0x7fffffff,
// so Integer.MIN_VALUE maps to 0 rather than staying negative).
int32_t group_partition(std::string_view group_id, int32_t num_partitions);

}  // namespace hw::broker::group
