#pragma once
// Which __consumer_offsets partition coordinates a group. Pure function;
// any thread.

#include <cstdint>
#include <string_view>

namespace hw::broker::group {

// Java's String.hashCode over the UTF-16 code units of a UTF-8 string
// (consumer::java_string_hash, shared with the consumer-group assignors).
int32_t java_string_hash(std::string_view utf8);

// Kafka's Utils.abs: the absolute value, except that Integer.MIN_VALUE
// (whose negation overflows) maps to 0.
int32_t kafka_abs(int32_t n);

// Utils.abs(hashCode) % num_partitions, as Kafka's group coordinator maps a
// group to its __consumer_offsets partition.
int32_t group_partition(std::string_view group_id, int32_t num_partitions);

}  // namespace hw::broker::group
